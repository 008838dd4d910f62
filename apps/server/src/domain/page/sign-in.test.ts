import { ErrorNumber, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { HashQueue } from '../../crypto/hash-queue.js';
import { newId } from '../../crypto/ids.js';
import { sha256 } from '../../crypto/keyed-hash.js';
import { costOf, hashPassword } from '../../crypto/password-hash.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { identityOf } from '../../testing/identity.js';
import { fullwidth } from '../../testing/spellings.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { SignInBulkheads } from '../bulkheads.js';
import { DomainError } from '../errors.js';
import { NO_LOCAL_PASSWORD } from '../identity/people.js';
import { Sessions } from './sessions.js';
import { decoyPasswordHash, SignIn, type SignInRequest } from './sign-in.js';
import { SigninThrottle } from './signin-throttle.js';

const T0 = Date.UTC(2026, 11, 7, 9);
const MINUTE = 60_000;
const COST = 10;
const KEY = Buffer.alloc(32, 4);
const PASSWORD = 'correct horse';
const ADDRESS = '198.51.100.7';
const STORED_HASH = hashPassword(PASSWORD, COST);

/**
 * Sign-in over the test's store as the composition root builds it (throttle, sessions, bulkheads,
 * one hash at a time with `queue` waiting), at a clock the test moves; `addUser` makes a local user.
 */
function signInOf(store: Store, options: { queue?: number; cost?: number; userLockAfter?: number } = {}) {
  let at = T0;
  const now = () => at;
  const bulkheads = new SignInBulkheads(store, { maxInFlight: 10, storeConnections: 3, storeWaitMs: 5000 });
  const hashQueue = new HashQueue(1, options.queue ?? 4);
  const signIn = new SignIn({
    store: bulkheads.store,
    bulkheads,
    people: identityOf(store, now).people.within(bulkheads.store),
    throttle: new SigninThrottle(
      bulkheads.store,
      {
        userLockAfter: options.userLockAfter ?? 3,
        addressLockAfter: 100,
        windowMs: 15 * MINUTE,
        lockMs: 10 * MINUTE,
        slowdownMs: 0,
        slowdownMaxMs: 1000,
      },
      KEY,
    ),
    sessions: new Sessions(store, [KEY], { idleMs: 30 * MINUTE, absoluteMs: 12 * 60 * MINUTE }),
    hashQueue,
    decoyPasswordHash: () => hashPassword('decoy', COST),
    identifierKey: KEY,
    passwordHashCost: options.cost ?? COST,
    now,
  });
  async function addUser(passwordHash?: string) {
    const id = newId(at);
    const username = usernameOrThrow(`user-${id.slice(-8).toLowerCase()}`);
    await store.users.create({
      id,
      username,
      passwordHash: passwordHash ?? (await STORED_HASH),
      fullName: 'Signing In',
      locale: 'en',
      createdAt: at,
    });
    return (await store.users.findById(id))!;
  }
  const attempt = (username: string, password: string, more: Partial<SignInRequest> = {}) =>
    signIn.signIn({ username, password, clientAddress: ADDRESS, previousSessionId: undefined, ...more });
  const entries = (event: string) => store.audit.list({ event, limit: 100 });
  return { signIn, hashQueue, addUser, attempt, entries, advance: (ms: number) => (at += ms) };
}

/** The refusal a sign-in ends in. */
async function refusalOf(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`not refused as a rule: ${String(error)}`);
  return error;
}

describe.each(STORE_KINDS)('signing in on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the right password starts a session, stamps the sign-in and audits it with the user as actor and nothing secret; the sign-in before it becomes the last one shown',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store);
      const user = await s.addUser();
      const signed = await s.attempt(user.username, PASSWORD);
      expect(signed.user.id).toBe(user.id);
      expect(await store.sessions.find(sha256(signed.sessionId))).toMatchObject({
        userId: user.id,
        createdAt: T0,
      });
      expect(await store.users.findById(user.id)).toMatchObject({ currentLoginAt: T0, lastLoginAt: null });
      const entries = await store.audit.list({ userId: user.id, limit: 10 });
      expect(entries).toMatchObject([
        { event: 'signin.succeeded', actor: user.username, clientAddress: ADDRESS, details: {} },
      ]);
      const trail = JSON.stringify(entries);
      for (const secret of [PASSWORD, signed.sessionId, signed.xsrfToken])
        expect(trail).not.toContain(secret);
      s.advance(MINUTE);
      await s.attempt(user.username, PASSWORD);
      expect(await store.users.findById(user.id)).toMatchObject({
        currentLoginAt: T0 + MINUTE,
        lastLoginAt: T0,
      });
    },
  );

  storeTest.concurrent(
    'a sign-in ends the session the browser held and issues a new id',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store);
      const user = await s.addUser();
      const first = await s.attempt(user.username, PASSWORD);
      const second = await s.attempt(user.username, PASSWORD, { previousSessionId: first.sessionId });
      expect(second.sessionId).not.toBe(first.sessionId);
      expect((await store.sessions.find(sha256(first.sessionId)))?.endedAt).toBe(T0);
      expect((await store.sessions.find(sha256(second.sessionId)))?.endedAt).toBeNull();
    },
  );

  storeTest.concurrent(
    'a wrong password, an unknown name, a disabled user and a user without a password of their own are refused alike, each audited with its reason, no session',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store);
      const user = await s.addUser();
      const disabled = await s.addUser();
      await store.users.update(disabled.id, { disabled: true });
      const provisioned = await s.addUser(NO_LOCAL_PASSWORD);
      const cases = [
        [user.username, 'not the password', 'wrong-password'],
        ['nobody-here', PASSWORD, 'unknown-user'],
        [disabled.username, PASSWORD, 'disabled'],
        [provisioned.username, NO_LOCAL_PASSWORD, 'wrong-password'],
      ] as const;
      for (const [name, password] of cases) {
        const refused = await refusalOf(s.attempt(name, password));
        expect([refused.errorNumber, refused.textKey, refused.result], name).toEqual([
          ErrorNumber.notPermitted,
          'login.failed',
          null,
        ]);
      }
      const failed = (await s.entries('signin.failed')).reverse();
      expect(failed.map((entry) => entry.details)).toEqual(cases.map(([, , reason]) => ({ reason })));
      expect(failed.map((entry) => entry.userId)).toEqual([user.id, null, disabled.id, provisioned.id]);
      expect(JSON.stringify(failed)).not.toContain('not the password');
      for (const one of [user, disabled, provisioned])
        expect(await store.sessions.listOpenOfUser(one.id)).toEqual([]);
    },
  );

  storeTest.concurrent(
    'an unknown name is audited only as a keyed hash, one actor for all its spellings; a spelling the profile refuses is no user',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store, { userLockAfter: 10 });
      const user = await s.addUser();
      for (const spelling of ['my-secret-Passw0rd', fullwidth('MY-SECRET-PASSW0RD')])
        await refusalOf(s.attempt(spelling, 'x'));
      // U+1D42E MATHEMATICAL BOLD SMALL U: a compatibility form, which no user's name is.
      await refusalOf(s.attempt(`\u{1D42E}${user.username.slice(1)}`, PASSWORD));
      const [bold, second, first] = await s.entries('signin.failed');
      expect(first?.actor).toMatch(/^unknown:[\w-]{16}$/);
      expect(second?.actor).toBe(first?.actor);
      expect(bold).toMatchObject({ userId: null, details: { reason: 'unknown-user' } });
      expect(bold?.actor).toMatch(/^unknown:/);
      const trail = JSON.stringify(await store.audit.list({ limit: 100 }));
      expect(trail.toLowerCase()).not.toContain('passw0rd');
      expect(trail).not.toContain(user.username.slice(1));
      // Any other spelling of the user's name is the user.
      expect((await s.attempt(fullwidth(user.username.toUpperCase()), PASSWORD)).user.id).toBe(user.id);
    },
  );

  storeTest.concurrent(
    'past the limit even the right password is refused with error 140 and the wait, audited as signin.locked, no session; after the lock it signs in',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store);
      const user = await s.addUser();
      for (let index = 0; index < 3; index += 1) await refusalOf(s.attempt(user.username, 'wrong'));
      const locked = await refusalOf(s.attempt(user.username, PASSWORD));
      expect([locked.errorNumber, locked.textKey, locked.result]).toEqual([
        ErrorNumber.tooManyRequests,
        'login.locked',
        { retryAfterSeconds: 600 },
      ]);
      expect(await s.entries('signin.locked')).toMatchObject([
        { userId: user.id, actor: user.username, details: { limit: 'user-address' } },
      ]);
      expect(await store.sessions.listOpenOfUser(user.id)).toEqual([]);
      // Under a minute to wait, the general words; the header's seconds rounded up.
      s.advance(10 * MINUTE - 1500);
      const soon = await refusalOf(s.attempt(user.username, PASSWORD));
      expect([soon.textKey, soon.result]).toEqual(['error.tooManyRequests', { retryAfterSeconds: 2 }]);
      s.advance(1500);
      expect((await s.attempt(user.username, PASSWORD)).user.id).toBe(user.id);
    },
  );

  storeTest.concurrent(
    'an unknown name is locked exactly as a known one',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store, { userLockAfter: 2 });
      const user = await s.addUser();
      const answers = async (name: string) => {
        const refusals = [];
        for (let index = 0; index < 3; index += 1) {
          const refused = await refusalOf(s.attempt(name, 'wrong'));
          refusals.push([refused.errorNumber, refused.textKey, refused.result]);
        }
        return refusals;
      };
      const known = await answers(user.username);
      expect(await answers('nobody-here')).toEqual(known);
      expect(known[2]?.[0]).toBe(ErrorNumber.tooManyRequests);
    },
  );

  storeTest.concurrent(
    'a success clears the name’s count: it may fail the full number of times again',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store);
      const user = await s.addUser();
      for (let index = 0; index < 2; index += 1) await refusalOf(s.attempt(user.username, 'wrong'));
      await s.attempt(user.username, PASSWORD);
      for (let index = 0; index < 3; index += 1)
        expect((await refusalOf(s.attempt(user.username, 'wrong'))).textKey).toBe('login.failed');
    },
  );

  storeTest.concurrent(
    'with every hashing slot and queue place taken, a sign-in is refused at once with error 140 for a second, audited as signin.busy, and counts nothing',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store, { queue: 0, userLockAfter: 1 });
      const user = await s.addUser();
      let release = (): void => undefined;
      const holding = s.hashQueue.tryRun(() => new Promise<void>((resolve) => (release = resolve)));
      const busy = await refusalOf(s.attempt(user.username, PASSWORD));
      expect([busy.errorNumber, busy.result]).toEqual([
        ErrorNumber.tooManyRequests,
        { retryAfterSeconds: 1 },
      ]);
      expect(await s.entries('signin.busy')).toMatchObject([{ userId: user.id, actor: user.username }]);
      release();
      await holding;
      // Counted nothing: with a limit of one attempt, the next is still checked.
      expect((await s.attempt(user.username, PASSWORD)).user.id).toBe(user.id);
    },
  );

  storeTest.concurrent(
    'a client gone before its password was checked costs no hash and counts nothing; one gone after a right password gets no session',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store, { userLockAfter: 1 });
      const user = await s.addUser();
      await refusalOf(s.attempt(user.username, PASSWORD, { stillWanted: () => false }));
      let asked = 0;
      await refusalOf(s.attempt(user.username, PASSWORD, { stillWanted: () => (asked += 1) === 1 }));
      expect((await s.entries('signin.abandoned')).map((entry) => entry.details)).toEqual([
        { stage: 'after-check' },
        { stage: 'before-check' },
      ]);
      expect(await store.sessions.listOpenOfUser(user.id)).toEqual([]);
      expect((await store.users.findById(user.id))?.currentLoginAt).toBeNull();
      expect(await s.entries('signin.succeeded')).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a hash made at another cost is made again at the configured one on a right password, and not on a wrong one',
    async ({ testStore: { store }, expect }) => {
      const s = signInOf(store, { cost: COST + 1 });
      const user = await s.addUser();
      await refusalOf(s.attempt(user.username, 'wrong'));
      expect(costOf((await store.users.findById(user.id))!.passwordHash)).toBe(COST);
      await s.attempt(user.username, PASSWORD);
      const rehashed = (await store.users.findById(user.id))!.passwordHash;
      expect(costOf(rehashed)).toBe(COST + 1);
      // The same password still opens it, and nothing was audited for it.
      expect((await s.attempt(user.username, PASSWORD)).user.id).toBe(user.id);
      expect((await store.audit.list({ userId: user.id, limit: 10 })).map((entry) => entry.event)).toEqual([
        'signin.succeeded',
        'signin.succeeded',
        'signin.failed',
      ]);
    },
  );

  storeTest.concurrent(
    'the decoy hash is made at the cost most stored hashes have, else at the configured one',
    async ({ testStore: { store }, expect }) => {
      expect(costOf(await decoyPasswordHash(store, 12))).toBe(12);
      const s = signInOf(store);
      await s.addUser();
      await s.addUser();
      await s.addUser(await hashPassword('x', 11));
      expect(costOf(await decoyPasswordHash(store, 12))).toBe(COST);
    },
  );
});
