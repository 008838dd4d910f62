import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { sha256 } from '../../crypto/keyed-hash.js';
import { hashPassword } from '../../crypto/password-hash.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DomainError } from '../errors.js';
import { CONSOLE_T0 as T0, DIRECTORY_GROUPS, directorySignInOf } from '../../testing/console-domain.js';

const ADDRESS = '198.51.100.9';
const { staff: STAFF, vpn: VPN } = DIRECTORY_GROUPS;

/** The console's sign-in with the directory's groups; `refusal`: why a password step was refused. */
function consoleOf(store: Store) {
  const signIn = directorySignInOf(store);
  return {
    ...signIn,
    /** The refusal's catalog text, and its audit entry's actor and details. */
    async refusal(username: string, password: string) {
      const error = await signIn.auth.password(username, password, ADDRESS).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      if (!(error instanceof DomainError)) throw new Error(`${username} was not refused`);
      const [entry] = await store.audit.list({ event: 'console.signin_failed', limit: 1 });
      return { textKey: error.textKey, actor: entry?.actor, ...entry?.details };
    },
    events: (event: 'console.account_created') => store.audit.list({ event, limit: 100 }),
  };
}

describe.each(STORE_KINDS)("console sign-in with the directory's password and groups on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a member of a mapped group signs in with the directory password: the first sign-in makes a passwordless account with the group's role, once",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const first = await t.auth.password('Alice', 'alice pw', ADDRESS);
      expect(first).toMatchObject({
        next: 'register-passkey',
        account: { username: 'alice', role: 'helpdesk' },
      });
      expect(await store.console.findAccountByUsername(usernameOrThrow('alice'))).toMatchObject({
        role: 'helpdesk',
        scope: null,
        passwordHash: '',
        displayName: 'Alice Archer',
      });
      expect(await store.consoleDirectory.rolesAtOf(sha256(first.sessionId))).toBe(T0);
      await t.auth.password('alice', 'alice pw', ADDRESS);
      expect(await store.console.listAccounts()).toHaveLength(1);
      expect(await t.events('console.account_created')).toMatchObject([
        {
          actor: 'console:alice',
          details: { username: 'alice', role: 'helpdesk', source: 'directory', groups: [STAFF, VPN] },
        },
      ]);
      expect(JSON.stringify(await store.audit.list({ limit: 100 }))).not.toContain('alice pw');
    },
  );

  storeTest.concurrent(
    'each refusal is audited with its reason from the directory, and no account is made',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      t.source.people.set('dora', {
        password: 'dora pw',
        externalId: 'e-dora',
        fullName: 'Dora',
        groups: [STAFF],
        disabled: true,
      });
      t.source.people.set('eli', {
        password: 'eli pw',
        externalId: 'e-eli',
        fullName: 'Eli',
        groups: [STAFF],
        problem: 'password-expired',
      });
      const refused = { textKey: 'login.failed', source: 'directory' };
      expect(await t.refusal('nobody', 'x')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'not-in-directory',
      });
      // A name the directory does not have costs a password check all the same.
      expect(t.source.asked.decoys).toBe(1);
      expect(await t.refusal('alice', 'wrong')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'wrong-password',
      });
      expect(await t.refusal('dora', 'dora pw')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'disabled',
      });
      expect(await t.refusal('eli', 'eli pw')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'directory-account',
        problem: 'password-expired',
      });
      // The right password, but no mapped group: told so, with the groups read in the trail.
      expect(await t.refusal('bob', 'bob pw')).toEqual({
        textKey: 'console.noDirectoryRole',
        source: 'directory',
        actor: 'console:?',
        reason: 'unmapped',
        groups: [VPN],
      });
      expect(await store.console.listAccounts()).toEqual([]);
    },
  );

  storeTest.concurrent(
    "a name taken by another directory entry's account, or an account disabled here, is refused",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.auth.password('alice', 'alice pw', ADDRESS);
      const account = await store.console.findAccountByUsername(usernameOrThrow('alice'));
      // The entry made again in the directory (a new id): a new person, who does not take the account.
      t.source.people.set('alice', { ...t.source.people.get('alice')!, externalId: 'e-alice-new' });
      expect(await t.refusal('alice', 'alice pw')).toMatchObject({
        textKey: 'login.failed',
        reason: 'username-taken',
        externalId: 'e-alice-new',
      });
      t.source.people.set('alice', { ...t.source.people.get('alice')!, externalId: 'e-alice' });
      await t.accounts.setDisabled(account!, true, 'cli');
      expect(await t.refusal('alice', 'alice pw')).toMatchObject({
        actor: 'console:alice',
        reason: 'disabled',
      });
    },
  );

  storeTest.concurrent(
    "a local console account keeps its own password: the directory's for its name opens nothing, and the directory is not asked",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      t.source.people.set('carol', {
        password: 'directory pw',
        externalId: 'e-carol',
        fullName: 'Carol',
        groups: [STAFF],
      });
      const input = {
        username: usernameOrThrow('carol'),
        displayName: 'Carol',
        role: 'admin' as const,
        scope: null,
      };
      await t.accounts.add({ ...input, passwordHash: await hashPassword('local pw', 4) }, 'cli');
      expect(await t.refusal('carol', 'directory pw')).toMatchObject({ reason: 'wrong-password' });
      expect((await t.auth.password('carol', 'local pw', ADDRESS)).account.role).toBe('admin');
      expect(t.source.asked.findUser).toBe(0);
    },
  );

  storeTest.concurrent(
    'a directory that cannot answer: unavailable with a retry, audited, and not counted against the name',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      t.source.answers = false;
      for (let attempt = 0; attempt < 4; attempt += 1)
        await expect(t.auth.password('alice', 'alice pw', ADDRESS)).rejects.toMatchObject({
          kind: 'unavailable',
          result: { retryAfterSeconds: 5 },
        });
      expect(await store.audit.list({ event: 'console.signin_failed' })).toHaveLength(4);
      expect((await store.audit.list({ event: 'console.signin_failed', limit: 1 }))[0]?.details).toEqual({
        reason: 'directory-unavailable',
      });
      t.source.answers = true;
      // Past the limit of three had they counted.
      expect((await t.auth.password('alice', 'alice pw', ADDRESS)).account.role).toBe('helpdesk');
    },
  );

  storeTest.concurrent(
    'eight first sign-ins at once make one account, and all of them sign in',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          t.auth.password('alice', 'alice pw', `198.51.100.${index + 1}`),
        ),
      );
      expect(new Set(answers.map((answer) => answer.account.id)).size).toBe(1);
      expect(await store.console.listAccounts()).toHaveLength(1);
      expect(await t.events('console.account_created')).toHaveLength(1);
    },
  );
});
