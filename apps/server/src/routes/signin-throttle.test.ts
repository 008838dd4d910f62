import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { purgeAsScheduled } from '../bootstrap.js';
import { costOf, hashPassword } from '../crypto/password-hash.js';
import { decoyPasswordHash } from '../domain/page/sign-in.js';
import { leavingClient } from '../testing/leaving-client.js';
import { STORE_KINDS } from '../testing/stores.js';
import { appTest } from '../testing/fixtures.js';
import { checkedPasswords, signInAttempt } from '../testing/sign-in-attempts.js';
import { TEST_PASSWORD_HASH_COST } from '../testing/test-app.js';

const MINUTE = 60_000;
const ATTACKER = '203.0.113.9';
const OWNER = '198.51.100.20';

describe.each(STORE_KINDS)('sign-in limits on %s', (kind) => {
  appTest.override('storeKind', kind);

  const attempt = signInAttempt;

  appTest(
    'locks a user name on one address after the configured failures, refuses even the right password, and unlocks after the lock time',
    async ({ startApp }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_LOCK_MINUTES: '10' });
      const user = await t.createUser();
      const answers = [];
      for (let index = 0; index < 4; index += 1)
        answers.push((await attempt(t, user.username, 'wrong')).json());
      expect(answers[0]).toEqual({
        error: 3,
        message: 'The user name or password is incorrect.',
        result: null,
      });
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      expect(answers[3]).toEqual({
        error: 140,
        message: 'Too many failed attempts. Please try again in about 10 minutes.',
        result: { retryAfterSeconds: 600 },
      });
      const locked = await attempt(t, user.username, user.password);
      expect(locked.json()).toMatchObject({ error: 140 });
      expect(locked.headers['retry-after']).toBe('600');
      expect(locked.cookies).toHaveLength(0);
      expect(await checkedPasswords(t)).toBe(3);

      t.clock.advance(10 * MINUTE);
      expect((await attempt(t, user.username, user.password)).json()).toMatchObject({ error: 0 });
    },
  );

  appTest(
    'checks at most DEA_SIGNIN_MAX_FAILURES passwords of a burst of 200 parallel guesses, and never accepts the right one while locked',
    async ({ startApp }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '5' });
      const user = await t.createUser();
      const guesses = Array.from({ length: 200 }, (_, index) =>
        index === 199 ? user.password : `guess-${index}`,
      );
      const answers = await Promise.all(
        guesses.map(async (guess) =>
          (await attempt(t, user.username, guess, ATTACKER)).json<{ error: number }>(),
        ),
      );
      const checked = await checkedPasswords(t);
      expect(checked).toBeLessThanOrEqual(5);
      expect(answers.filter((answer) => answer.error === 140)).toHaveLength(200 - checked);
      // The right password came last: whether or not it was among the checked, once the pair is
      // locked it is refused.
      const afterwards = await attempt(t, user.username, user.password, ATTACKER);
      if (answers[199]?.error !== 0) expect(afterwards.json()).toMatchObject({ error: 140 });
      expect(await checkedPasswords(t)).toBe(checked);
    },
  );

  appTest(
    'after DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS failures from one address, 100 parallel repeats of the names that failed get no check, while a user who has not failed signs in',
    async ({ startApp }) => {
      const t = await startApp({
        DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '7',
        DEA_SIGNIN_MAX_FAILURES: '5',
        DEA_SIGNIN_SLOWDOWN_MS: '1000',
        // Every one of the 30 first attempts waits its turn for a hash rather than being turned away.
        DEA_PASSWORD_HASH_QUEUE: '100',
        DEA_SIGNIN_MAX_IN_FLIGHT: '100',
      });
      const colleague = await t.createUser();
      // One office behind one address: 30 people mistype once, all at once.
      await Promise.all(
        Array.from({ length: 30 }, (_, index) => attempt(t, `typo-${index}`, 'wrong', ATTACKER)),
      );
      expect(await checkedPasswords(t)).toBe(30);
      // The address is slowed down: names that failed from it are not checked again yet...
      const repeats = await Promise.all(
        Array.from({ length: 100 }, (_, index) => attempt(t, `typo-${index % 30}`, 'wrong', ATTACKER)),
      );
      expect(repeats.every((answer) => answer.json<{ error: number }>().error === 140)).toBe(true);
      expect(Number(repeats[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(await checkedPasswords(t)).toBe(30);
      // ...and a colleague who has not failed is never refused because of them.
      expect((await attempt(t, colleague.username, colleague.password, ATTACKER)).json()).toMatchObject({
        error: 0,
      });
      // Once the delay has passed, 20 parallel repeats get one check, and the delay doubles.
      t.clock.advance(MINUTE);
      await Promise.all(
        Array.from({ length: 20 }, (_, index) => attempt(t, `typo-${index}`, 'wrong', ATTACKER)),
      );
      expect(await checkedPasswords(t)).toBe(32);
      const refused = await attempt(t, 'typo-3', 'wrong', ATTACKER);
      expect(refused.json()).toMatchObject({ error: 140 });
      // A user name that failed elsewhere but not from this address is checked as usual.
      await attempt(t, 'roaming', 'wrong', OWNER);
      expect((await attempt(t, 'roaming', 'wrong', ATTACKER)).json()).toMatchObject({ error: 3 });
    },
  );

  appTest.for(['127.0.0.1', '1'])(
    'behind a trusted proxy (DEA_TRUST_PROXY=%s), counts the address the proxy saw, not one the client claims',
    async (trusted, { startApp }) => {
      const t = await startApp({ DEA_TRUST_PROXY: trusted, DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '4' });
      const user = await t.createUser();
      const viaProxy = (username: string, password: string, claimed: string) =>
        t.app.inject({
          method: 'POST',
          url: '/login/api/session',
          payload: { username, password },
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': `${claimed}, ${ATTACKER}` },
        });
      // Four names fail, each claiming another address: the proxy saw one, which is now slowed down.
      for (let index = 0; index < 4; index += 1) await viaProxy(`n-${index}`, 'x', `10.9.${index}.1`);
      // Had the claimed addresses counted, these names would not have failed from them and be checked.
      await Promise.all(
        Array.from({ length: 20 }, (_, index) => viaProxy(`n-${index % 4}`, 'x', `10.8.${index}.1`)),
      );
      expect(await checkedPasswords(t)).toBe(4);
      // The user has not failed from that address: signed in, whatever it claims.
      expect((await viaProxy(user.username, user.password, OWNER)).json()).toMatchObject({ error: 0 });
      const addresses = new Set(
        (await t.services.store.audit.list({ limit: 100 })).map((entry) => entry.clientAddress),
      );
      expect([...addresses]).toEqual([ATTACKER]);
    },
  );

  appTest(
    'lets the owner on a clean address in while an attacker is locked out of the same user name',
    async ({ startApp }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_SLOWDOWN_MS: '0' });
      const user = await t.createUser();
      await Promise.all(Array.from({ length: 20 }, () => attempt(t, user.username, 'wrong', ATTACKER)));
      expect((await attempt(t, user.username, user.password, ATTACKER)).json()).toMatchObject({ error: 140 });
      expect((await attempt(t, user.username, user.password, OWNER)).json()).toMatchObject({ error: 0 });
    },
  );

  appTest(
    'slows a user name guessed from many addresses down to one check per delay, doubling, and the owner gets in after it',
    async ({ startApp }) => {
      const t = await startApp({
        DEA_SIGNIN_MAX_FAILURES: '3',
        DEA_SIGNIN_SLOWDOWN_MS: '1000',
        DEA_SIGNIN_SLOWDOWN_MAX_SECONDS: '4',
      });
      const user = await t.createUser();
      const fromMany = (count: number) =>
        Promise.all(
          Array.from({ length: count }, (_, index) =>
            attempt(t, user.username, 'wrong', `192.0.2.${index + 1}`),
          ),
        );
      await fromMany(50);
      expect(await checkedPasswords(t)).toBe(3);
      const slowed = await attempt(t, user.username, user.password, OWNER);
      expect(slowed.json()).toMatchObject({ error: 140, result: { retryAfterSeconds: 1 } });
      expect(slowed.headers['retry-after']).toBe('1');

      t.clock.advance(1000);
      await fromMany(50);
      expect(await checkedPasswords(t)).toBe(4);
      t.clock.advance(1000);
      await fromMany(50);
      expect(await checkedPasswords(t)).toBe(4); // the delay doubled to 2 s
      t.clock.advance(1000);
      expect((await attempt(t, user.username, user.password, OWNER)).json()).toMatchObject({ error: 0 });
    },
  );

  appTest(
    'purges attempts older than the window, but never a lock that still holds',
    async ({ startApp }) => {
      const t = await startApp({
        DEA_SIGNIN_MAX_FAILURES: '2',
        DEA_SIGNIN_WINDOW_MINUTES: '5',
        DEA_SIGNIN_LOCK_MINUTES: '30',
      });
      await Promise.all(Array.from({ length: 3 }, () => attempt(t, 'locked-one', 'x', ATTACKER)));
      await attempt(t, 'tried-once', 'x', OWNER);
      t.clock.advance(6 * MINUTE);
      const outcome = await purgeAsScheduled(t.services, 'test');
      // Of six subjects (user-address, user and address of each), only locked-one's pair is locked.
      expect(outcome).toMatchObject({ ran: true, removed: { signinFailures: 5 } });
      expect((await attempt(t, 'locked-one', 'x', ATTACKER)).json()).toMatchObject({ error: 140 });
    },
  );

  appTest('answers an unknown user name exactly as an existing one, lock included', async ({ startApp }) => {
    const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '2' });
    const user = await t.createUser();
    const known = [];
    const unknown = [];
    for (let index = 0; index < 3; index += 1) known.push((await attempt(t, user.username, 'wrong')).json());
    for (let index = 0; index < 3; index += 1)
      unknown.push((await attempt(t, 'nobody-here', 'wrong')).json());
    expect(unknown).toEqual(known);
    expect(known[2]).toMatchObject({ error: 140 });
  });

  appTest(
    'forgets failures older than the window, and a successful sign-in clears the count',
    async ({ startApp }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_WINDOW_MINUTES: '5' });
      const user = await t.createUser();
      await attempt(t, user.username, 'wrong');
      await attempt(t, user.username, 'wrong');
      t.clock.advance(6 * MINUTE);
      expect((await attempt(t, user.username, 'wrong')).json()).toMatchObject({ error: 3 });
      expect((await attempt(t, user.username, user.password)).json()).toMatchObject({ error: 0 });
      expect((await attempt(t, user.username, 'wrong')).json()).toMatchObject({ error: 3 });
      expect((await attempt(t, user.username, 'wrong')).json()).toMatchObject({ error: 3 });
      expect((await attempt(t, user.username, 'wrong')).json()).toMatchObject({ error: 3 });
    },
  );

  appTest(
    'audits every attempt, and names an unknown user name only by a keyed hash',
    async ({ startApp }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '1' });
      const user = await t.createUser();
      await attempt(t, user.username, 'wrong');
      await attempt(t, user.username, user.password);
      t.clock.advance(60 * MINUTE);
      await attempt(t, user.username, user.password);
      await attempt(t, 'my-secret-Passw0rd', 'x', OWNER);
      const entries = (await t.services.store.audit.list({ limit: 10 })).reverse();
      expect(entries.map((entry) => entry.event)).toEqual([
        'signin.failed',
        'signin.locked',
        'signin.succeeded',
        'signin.failed',
      ]);
      expect(entries[0]?.actor).toBe(user.username);
      expect(entries[3]?.actor).toMatch(/^unknown:[\w-]{16}$/);
      const everything = JSON.stringify(await t.services.store.audit.list({ limit: 100 }));
      expect(everything).not.toContain('my-secret-Passw0rd');
      const throttleRows = await Promise.all(
        ['my-secret-passw0rd', 'user:my-secret-passw0rd'].map((subject) =>
          t.services.store.signinFailures.find(subject),
        ),
      );
      expect(throttleRows).toEqual([undefined, undefined]);
    },
  );

  appTest(
    'refuses sign-ins beyond the hashing queue with error 140 and Retry-After, counting nothing for them (crypto/hash-queue.test.ts shows at most the configured hashes run at once)',
    async ({ startApp }) => {
      const t = await startApp({
        DEA_PASSWORD_HASH_CONCURRENCY: '1',
        DEA_PASSWORD_HASH_QUEUE: '2',
        DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
        DEA_SIGNIN_MAX_IN_FLIGHT: '100',
      });
      // The only hash slot is held until every attempt has either been refused or waits its turn,
      // however fast or slow the machine: two wait, the other 28 are refused.
      let release = (): void => undefined;
      const holding = t.services.hashQueue.tryRun(() => new Promise<void>((resolve) => (release = resolve)));
      let settled = 0;
      const attempts = Array.from({ length: 30 }, (_, index) =>
        attempt(t, `nobody-${index}`, 'wrong', `192.0.2.${index + 1}`).finally(() => (settled += 1)),
      );
      await expect
        .poll(() => ({ settled, waiting: t.services.hashQueue.load.waiting }), {
          interval: 5,
          timeout: 20_000,
        })
        .toEqual({ settled: 28, waiting: 2 });
      release();
      await holding;
      const answers = await Promise.all(attempts);
      const busy = answers.filter((answer) => answer.json<{ error: number }>().error === 140);
      expect(busy).toHaveLength(28);
      expect(busy[0]?.headers['retry-after']).toBe('1');
      expect(busy[0]?.json()).toMatchObject({ result: { retryAfterSeconds: 1 } });
      expect(await checkedPasswords(t)).toBe(2);
      // A refused attempt counted nothing: its user name may try again at once.
      const index = answers.indexOf(busy[0]!);
      expect((await attempt(t, `nobody-${index}`, 'wrong', `192.0.2.${index + 1}`)).json()).toMatchObject({
        error: 3,
      });
    },
  );

  appTest(
    'gives up the work of a client that left: no hash while it waited its turn, no session after a right password',
    async ({ startApp }) => {
      const t = await startApp({ DEA_PASSWORD_HASH_CONCURRENCY: '1', DEA_PASSWORD_HASH_QUEUE: '10' });
      const user = await t.createUser();
      // A slow hash holds the only slot while the user's attempt waits; its client leaves meanwhile.
      const slow = await t.createUser();
      await t.services.store.users.replacePasswordHash(
        slow.id,
        (await t.services.store.users.findById(slow.id))!.passwordHash,
        await hashPassword(slow.password, 17),
      );
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const signIn = (username: string, password: string) =>
        fetch(`${base}/login/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username, password }),
        });
      const hashes = (): { running: number; waiting: number } => t.services.hashQueue.load;
      const holding = signIn(slow.username, 'wrong');
      await expect.poll(hashes, { interval: 1 }).toEqual({ running: 1, waiting: 0 });
      const leaving = leavingClient(`${base}/login/api/session`, {
        username: user.username,
        password: user.password,
      });
      // Its attempt waits in the queue behind the slow hash (about 0.3 s, longer on a loaded machine).
      await expect.poll(hashes, { interval: 1 }).toEqual({ running: 1, waiting: 1 });
      leaving.leave();
      expect(await leaving.left).toBe('left');
      await holding;
      await expect
        .poll(
          async () =>
            (await t.services.store.audit.list({ userId: user.id, event: 'signin.abandoned' })).length,
        )
        .toBe(1);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'signin.abandoned' })).toMatchObject(
        [{ details: { stage: 'before-check' } }],
      );
      // Nothing was checked, nothing counted, no session: the user signs in at once.
      expect((await t.services.store.users.findById(user.id))?.lastLoginAt).toBeNull();
      expect(await (await signIn(user.username, user.password)).json()).toMatchObject({ error: 0 });

      // Left after the check, with the right password: no session, audited as such.
      const other = await t.createUser();
      let calls = 0;
      await expect(
        t.services.signIn.signIn({
          username: other.username,
          password: other.password,
          clientAddress: '192.0.2.7',
          previousSessionId: undefined,
          stillWanted: () => (calls += 1) === 1,
        }),
      ).rejects.toThrow();
      expect(
        await t.services.store.audit.list({ userId: other.id, event: 'signin.abandoned' }),
      ).toMatchObject([{ details: { stage: 'after-check' } }]);
      expect((await t.services.store.users.findById(other.id))?.lastLoginAt).toBeNull();
    },
  );

  appTest('rehashes a password made at another cost on a successful sign-in', async ({ startApp }) => {
    const t = await startApp({ DEA_PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST + 1) });
    const user = await t.createUser();
    expect(
      costOf((await t.services.store.users.findByUsername(usernameOrThrow(user.username)))!.passwordHash),
    ).toBe(TEST_PASSWORD_HASH_COST);
    expect((await attempt(t, user.username, user.password)).json()).toMatchObject({ error: 0 });
    const rehashed = (await t.services.store.users.findByUsername(usernameOrThrow(user.username)))!
      .passwordHash;
    expect(costOf(rehashed)).toBe(TEST_PASSWORD_HASH_COST + 1);
    expect((await attempt(t, user.username, user.password)).json()).toMatchObject({ error: 0 });
  });

  appTest('makes the decoy hash at the cost most stored hashes have', async ({ startApp }) => {
    const t = await startApp();
    expect(costOf(await decoyPasswordHash(t.services.store, 12))).toBe(12);
    await t.createUser();
    await t.createUser();
    const odd = await t.createUser();
    await t.services.store.users.update(odd.id, { passwordHash: await hashPassword('x', 11) });
    expect(costOf(await decoyPasswordHash(t.services.store, 12))).toBe(TEST_PASSWORD_HASH_COST);
  });
});
