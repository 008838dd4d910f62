import { describe } from 'vitest';
import { HashQueue } from '../../crypto/hash-queue.js';
import { sha256 } from '../../crypto/keyed-hash.js';
import type { ConsoleRole, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DomainError } from '../errors.js';
import {
  CONSOLE_PASSWORD as PASSWORD,
  CONSOLE_T0 as T0,
  consoleSignInOf,
} from '../../testing/console-domain.js';

const MINUTE = 60_000;
const ADDRESS = '198.51.100.9';

/**
 * The console's sign-in over the store, three passwords checked per name and address, then a
 * lock of 15 minutes; `hashes`: a queue of its own.
 */
function consoleOf(store: Store, hashes?: HashQueue) {
  const signIn = consoleSignInOf(store, {
    limits: { userLockAfter: 3 },
    ...(hashes !== undefined && { hashes }),
  });
  return {
    ...signIn,
    advance: (ms: number) => {
      signIn.clock.at += ms;
    },
    add: async (username: string, role: ConsoleRole = 'helpdesk', password?: string) =>
      (await signIn.addLocal(username, role, password)).account,
    failures: async () =>
      (await store.audit.list({ event: 'console.signin_failed' })).map(
        (entry): Record<string, unknown> => ({ actor: entry.actor, ...entry.details }),
      ),
  };
}

/** What a refusal was, in the domain's words. */
async function refusalOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`not refused by the domain: ${String(error)}`);
  return { errorNumber: error.errorNumber, textKey: error.textKey, kind: error.kind, params: error.params };
}

const openSessionsOf = (store: Store, accountId: string) => store.console.endSessionsOf(accountId, T0);

describe.each(STORE_KINDS)("the console's password step on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the password opens a session that goes on only to the passkey: registering the first, then using one',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const ada = await t.add('ada');
      const first = await t.auth.password('Ada', PASSWORD, ADDRESS);
      expect(first).toMatchObject({ next: 'register-passkey', account: { id: ada.id } });
      const caller = await t.auth.caller(first.sessionId, first.xsrfToken, true);
      expect(caller).toMatchObject({ passkeyVerified: false, signedInWith: 'passkey' });
      expect(t.auth.passkeyFresh(caller)).toBe(false);

      await store.console.addPasskey({
        credentialId: 'key-ada',
        accountId: ada.id,
        publicKey: 'AA',
        counter: 0,
        transports: [],
        createdAt: T0,
        lastUsedAt: null,
      });
      expect((await t.auth.password('ada', PASSWORD, ADDRESS)).next).toBe('passkey');
      // A right password is no failure: the trail holds none.
      expect(await t.failures()).toEqual([]);
    },
  );

  storeTest.concurrent(
    'an unknown name, a disabled account, an account of the OpenID provider and a wrong password are refused alike, each audited with its reason',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const ben = await t.add('ben');
      const cleo = await t.add('cleo');
      await t.accounts.setDisabled(cleo, true, 'cli');
      const pat = await t.add('pat', 'helpdesk', '');

      const refusals = [
        await refusalOf(t.auth.password('ben', 'not the password', ADDRESS)),
        await refusalOf(t.auth.password('nobody', PASSWORD, ADDRESS)),
        await refusalOf(t.auth.password('cleo', PASSWORD, ADDRESS)),
        // No password typed in the provider account's name opens it, whatever it is.
        await refusalOf(t.auth.password('pat', '', ADDRESS)),
      ];
      for (const refusal of refusals)
        expect(refusal).toEqual({ errorNumber: 3, textKey: 'login.failed', kind: 'refused', params: {} });
      expect(await t.failures()).toEqual(
        expect.arrayContaining([
          { actor: 'console:ben', reason: 'wrong-password' },
          { actor: 'console:?', reason: 'unknown-account' },
          { actor: 'console:cleo', reason: 'disabled' },
          { actor: 'console:pat', reason: 'identity-provider-account' },
        ]),
      );
      expect(JSON.stringify(await store.audit.list({ limit: 100 }))).not.toContain(PASSWORD);
      for (const account of [ben, cleo, pat]) expect(await openSessionsOf(store, account.id)).toBe(0);
    },
  );

  storeTest.concurrent(
    "a name's third password from an address is checked, the fourth is refused unchecked until the lock ends",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const dora = await t.add('dora');
      // Every spelling of the name shares the one count.
      for (const typed of ['dora', 'Dora', 'DORA'])
        expect(await refusalOf(t.auth.password(typed, 'wrong', ADDRESS))).toMatchObject({
          textKey: 'login.failed',
        });
      // Locked: the right password is not even checked.
      expect(await refusalOf(t.auth.password('dora', PASSWORD, ADDRESS))).toEqual({
        errorNumber: 140,
        textKey: 'error.tooManyRequests',
        kind: 'refused',
        params: { seconds: 15 * 60, minutes: 15 },
      });
      expect(await t.failures()).toEqual([
        { actor: 'console:dora', reason: 'locked', limit: 'user-address' },
        ...Array.from({ length: 3 }, () => ({ actor: 'console:dora', reason: 'wrong-password' })),
      ]);
      expect(await openSessionsOf(store, dora.id)).toBe(0);

      t.advance(15 * MINUTE - 1);
      expect(await refusalOf(t.auth.password('dora', PASSWORD, ADDRESS))).toMatchObject({
        errorNumber: 140,
        params: { seconds: 1 },
      });
      t.advance(1);
      expect((await t.auth.password('dora', PASSWORD, ADDRESS)).account.id).toBe(dora.id);
    },
  );

  storeTest.concurrent(
    'of eight wrong passwords at once, three are checked and five refused as locked',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const ben = await t.add('ben');
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => refusalOf(t.auth.password('ben', 'still wrong', ADDRESS))),
      );
      expect(answers.filter((answer) => answer.textKey === 'login.failed')).toHaveLength(3);
      expect(answers.filter((answer) => answer.errorNumber === 140)).toHaveLength(5);
      const reasons = (await t.failures()).map((entry) => entry.reason);
      expect(reasons.filter((reason) => reason === 'wrong-password')).toHaveLength(3);
      expect(reasons.filter((reason) => reason === 'locked')).toHaveLength(5);
      expect(await openSessionsOf(store, ben.id)).toBe(0);
    },
  );

  storeTest.concurrent(
    "a right password clears the name's failures: two before it and two after it lock nothing",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.add('eli');
      const wrongTwice = async () => {
        for (let attempt = 0; attempt < 2; attempt += 1)
          await expect(t.auth.password('eli', 'wrong', ADDRESS)).rejects.toThrow('login.failed');
      };
      await wrongTwice();
      await t.auth.password('eli', PASSWORD, ADDRESS);
      await wrongTwice();
      expect((await t.auth.password('eli', PASSWORD, ADDRESS)).next).toBe('register-passkey');
      expect((await t.failures()).filter((entry) => entry.reason === 'locked')).toEqual([]);
    },
  );

  storeTest.concurrent(
    'with no room to hash the password, the attempt is refused for a second and not counted as a failure',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.add('fay');
      const full = consoleOf(store, new HashQueue(0, 0));
      for (let attempt = 0; attempt < 5; attempt += 1)
        expect(await refusalOf(full.auth.password('fay', PASSWORD, ADDRESS))).toMatchObject({
          errorNumber: 140,
          params: { seconds: 1 },
        });
      expect(await t.failures()).toEqual([]);
      // None of the five counted: two wrong passwords and the right one still pass the limit of three.
      await expect(t.auth.password('fay', 'wrong', ADDRESS)).rejects.toThrow('login.failed');
      await expect(t.auth.password('fay', 'wrong', ADDRESS)).rejects.toThrow('login.failed');
      expect((await t.auth.password('fay', PASSWORD, ADDRESS)).next).toBe('register-passkey');
    },
  );
});

describe.each(STORE_KINDS)("a console session's requests on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'no session, an unknown one and one signed out are answered as not signed in',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.add('gil');
      const notSignedIn = {
        errorNumber: 3,
        textKey: 'error.notPermitted',
        kind: 'unauthenticated',
        params: {},
      };
      expect(await refusalOf(t.auth.caller(undefined, undefined, false))).toEqual(notSignedIn);
      expect(await refusalOf(t.auth.caller('no-such-session', undefined, false))).toEqual(notSignedIn);

      const { sessionId, xsrfToken } = await t.auth.password('gil', PASSWORD, ADDRESS);
      await t.auth.signOut(await t.auth.caller(sessionId, xsrfToken, true));
      expect(await refusalOf(t.auth.caller(sessionId, xsrfToken, false))).toEqual(notSignedIn);
      expect(await store.audit.list({ event: 'console.signout' })).toMatchObject([
        { actor: 'console:gil', details: { role: 'helpdesk' } },
      ]);
    },
  );

  storeTest.concurrent(
    "a session ends after the console's idle time without a request; each request starts that time again",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.add('hal');
      const { sessionId } = await t.auth.password('hal', PASSWORD, ADDRESS);
      t.advance(15 * MINUTE - 1);
      expect((await t.auth.caller(sessionId, undefined, false)).session.lastSeenAt).toBe(T0);
      expect((await store.console.findSession(sha256(sessionId)))?.lastSeenAt).toBe(T0 + 15 * MINUTE - 1);
      t.advance(15 * MINUTE - 1);
      await t.auth.caller(sessionId, undefined, false);
      t.advance(15 * MINUTE);
      await expect(t.auth.caller(sessionId, undefined, false)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
      // Ended for good: a request a moment later does not bring it back.
      t.advance(-1);
      await expect(t.auth.caller(sessionId, undefined, false)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
    },
  );

  storeTest.concurrent(
    "a change needs the session's cross-site token: without it or with another, forbidden and the session not seen",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.add('ivo');
      const { sessionId, xsrfToken } = await t.auth.password('ivo', PASSWORD, ADDRESS);
      const { xsrfToken: another } = await t.auth.password('ivo', PASSWORD, ADDRESS);
      t.advance(10 * MINUTE);
      for (const presented of [undefined, '', another])
        expect(await refusalOf(t.auth.caller(sessionId, presented, true))).toMatchObject({
          kind: 'forbidden',
        });
      // A read asks for no token.
      t.advance(5 * MINUTE - 1);
      expect((await t.auth.caller(sessionId, undefined, false)).account.username).toBe('ivo');
      expect((await t.auth.caller(sessionId, xsrfToken, true)).account.username).toBe('ivo');
    },
  );

  storeTest.concurrent(
    "a disabled account's session ends at its next request",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const jo = await t.add('jo');
      const { sessionId } = await t.auth.password('jo', PASSWORD, ADDRESS);
      const { session } = await t.auth.caller(sessionId, undefined, false);
      // Disabled behind the session's back (the console's own change ends its sessions too).
      await store.console.updateAccount(jo.id, { disabled: true });
      t.advance(MINUTE);
      await expect(t.auth.caller(sessionId, undefined, false)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
      expect((await store.console.findSession(session.idHash))?.endedAt).toBe(T0 + MINUTE);
      await store.console.updateAccount(jo.id, { disabled: false });
      await expect(t.auth.caller(sessionId, undefined, false)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
    },
  );

  storeTest.concurrent(
    'a passkey check counts for a sensitive action up to the moment before the fresh time ends',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.add('kai');
      const { sessionId } = await t.auth.password('kai', PASSWORD, ADDRESS);
      const { session } = await t.auth.caller(sessionId, undefined, false);
      await store.console.markPasskey(session.idHash, T0);
      const caller = await t.auth.caller(sessionId, undefined, false);
      expect(caller.passkeyVerified).toBe(true);
      t.advance(5 * MINUTE - 1);
      expect(t.auth.passkeyFresh(caller)).toBe(true);
      t.advance(1);
      expect(t.auth.passkeyFresh(caller)).toBe(false);
      // Still signed in: only the sensitive action asks for the passkey again.
      expect((await t.auth.caller(sessionId, undefined, false)).passkeyVerified).toBe(true);
    },
  );
});
