import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { sha256 } from '../../crypto/keyed-hash.js';
import { hashPassword } from '../../crypto/password-hash.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ConsoleDirectory } from './console-directory.js';
import {
  CONSOLE_T0 as T0,
  DIRECTORY_GROUPS,
  DIRECTORY_ROLES,
  directorySignInOf,
} from '../../testing/console-domain.js';

const { staff: STAFF, auditors: AUDITORS, vpn: VPN } = DIRECTORY_GROUPS;
const REFRESH_MS = 60_000;

/** The console's sign-in with the directory's groups, and the trail of role changes. */
function consoleOf(store: Store) {
  return {
    ...directorySignInOf(store),
    events: () => store.audit.list({ event: 'console.directory_role_changed', limit: 100 }),
  };
}

describe.each(STORE_KINDS)("a directory person's role read again on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the groups are read again once the refresh time has passed, not before; a changed group changes the role and scope, audited',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const alice = await t.signIn('alice', 'alice pw');
      const read = t.source.asked.groups;
      t.source.people.get('alice')!.groups = [AUDITORS];
      t.clock.at = T0 + REFRESH_MS - 1;
      expect((await alice.request()).account.role).toBe('helpdesk');
      expect(t.source.asked.groups).toBe(read);
      t.clock.at = T0 + REFRESH_MS;
      expect((await alice.request()).account).toMatchObject({ role: 'auditor', scope: ['Finance'] });
      expect(await store.console.findAccountByUsername(usernameOrThrow('alice'))).toMatchObject({
        role: 'auditor',
        scope: ['Finance'],
      });
      expect(await t.events()).toMatchObject([
        {
          actor: 'console:alice',
          details: {
            from: 'helpdesk',
            to: 'auditor',
            fromScope: null,
            toScope: ['Finance'],
            groups: [AUDITORS],
          },
        },
      ]);
      // The next reading is a refresh time after this one.
      t.clock.at = T0 + 2 * REFRESH_MS - 1;
      await alice.request();
      expect(t.source.asked.groups).toBe(read + 1);
    },
  );

  storeTest.concurrent(
    'requests at once after the refresh is due share one reading of the groups',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const alice = await t.signIn('alice', 'alice pw');
      const read = t.source.asked.groups;
      t.clock.at = T0 + REFRESH_MS;
      const callers = await Promise.all(Array.from({ length: 5 }, () => alice.request()));
      expect(callers.map((caller) => caller.account.role)).toEqual(
        Array.from({ length: 5 }, () => 'helpdesk'),
      );
      expect(t.source.asked.groups).toBe(read + 1);
      // The same role: nothing changed, nothing audited.
      expect(await t.events()).toEqual([]);
    },
  );

  storeTest.concurrent(
    'of two instances reading the role again at once, the first kept stands for both, audited once',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const alice = await t.signIn('alice', 'alice pw');
      const { session, account } = await alice.request();
      // A second instance of the server: the same store, directory and clock, readings of its own.
      const other = new ConsoleDirectory({
        store,
        accounts: t.accounts,
        source: t.source,
        settings: { roles: DIRECTORY_ROLES, roleRefreshMs: REFRESH_MS },
        now: () => t.clock.at,
      });
      t.source.people.get('alice')!.groups = [AUDITORS];
      t.clock.at = T0 + REFRESH_MS;
      // Both instances are reading the groups before either keeps what it read.
      t.source.holdGroupReadings(2);
      const [mine, theirs] = await Promise.all([
        t.directory.current(session, account),
        other.current(session, account),
      ]);
      expect(mine).toMatchObject({ role: 'auditor', scope: ['Finance'] });
      expect(theirs).toMatchObject({ role: 'auditor', scope: ['Finance'] });
      expect(await t.events()).toHaveLength(1);
      expect(await store.consoleDirectory.rolesAtOf(session.idHash)).toBe(T0 + REFRESH_MS);
    },
  );

  storeTest.concurrent(
    'no longer in a mapped group, disabled, or gone from the directory: the session ends at the next request after the refresh, audited with the reason',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      for (const name of ['fay', 'gil', 'hal', 'ivo'])
        t.source.people.set(name, {
          password: `${name} pw`,
          externalId: `e-${name}`,
          fullName: name,
          groups: [STAFF],
        });
      const sessions = await Promise.all(
        ['fay', 'gil', 'hal', 'ivo'].map((name) => t.signIn(name, `${name} pw`)),
      );
      t.source.people.get('fay')!.groups = [VPN];
      t.source.people.get('gil')!.disabled = true;
      t.source.people.delete('hal');
      // Made again under the same name: another person.
      t.source.people.set('ivo', { ...t.source.people.get('ivo')!, externalId: 'e-ivo-new' });
      t.clock.at = T0 + REFRESH_MS;
      for (const session of sessions) {
        await expect(session.request()).rejects.toMatchObject({ kind: 'unauthenticated' });
        expect((await store.console.findSession(sha256(session.sessionId)))?.endedAt).toBe(T0 + REFRESH_MS);
      }
      const ends = (await t.events()).map((entry) => [entry.actor, entry.details]);
      expect(ends).toEqual(
        expect.arrayContaining([
          ['console:fay', { from: 'helpdesk', to: null, reason: 'unmapped', groups: [VPN] }],
          ['console:gil', { from: 'helpdesk', to: null, reason: 'disabled' }],
          ['console:hal', { from: 'helpdesk', to: null, reason: 'not-in-directory' }],
          ['console:ivo', { from: 'helpdesk', to: null, reason: 'not-in-directory' }],
        ]),
      );
      expect(ends).toHaveLength(4);
    },
  );

  storeTest.concurrent(
    'a directory that cannot answer at the refresh ends nothing: the request is told to retry, the session goes on once it answers',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const alice = await t.signIn('alice', 'alice pw');
      t.clock.at = T0 + REFRESH_MS;
      t.source.answers = false;
      await expect(alice.request()).rejects.toMatchObject({ kind: 'unavailable' });
      expect((await store.console.findSession(sha256(alice.sessionId)))?.endedAt).toBeNull();
      t.source.answers = true;
      expect((await alice.request()).account.role).toBe('helpdesk');
    },
  );

  storeTest.concurrent(
    "a local account's session is not the directory's: its role is never read there",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const input = {
        username: usernameOrThrow('lou'),
        displayName: 'Lou',
        role: 'auditor' as const,
        scope: null,
      };
      await t.accounts.add({ ...input, passwordHash: await hashPassword('lou pw', 4) }, 'cli');
      const lou = await t.signIn('lou', 'lou pw');
      const { session, account } = await lou.request();
      t.clock.at = T0 + 10 * REFRESH_MS;
      expect(await t.directory.current(session, account)).toBe('not-directory');
      expect((await lou.request()).account.role).toBe('auditor');
      expect(t.source.asked).toEqual({ findUser: 0, groups: 0, decoys: 0 });
    },
  );
});
