import pg from 'pg';
import { describe, expect, inject } from 'vitest';
import { sha256 } from '../../crypto/keyed-hash.js';
import { appTest } from '../../testing/fixtures.js';
import { createLdapTree, DIRECTORY_PEOPLE, type LdapTree } from '../../testing/ldap-tree.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { tcpFront } from '../../testing/tcp-fronts.js';
import type { TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';

// Vitest reads a fixture's dependencies from its first parameter's destructuring: none here.
// oxlint-disable-next-line no-empty-pattern
const directoryTest = appTest.extend('tree', async ({}, { onCleanup }) => {
  const tree = await createLdapTree(inject('ldap'));
  onCleanup(() => tree.dispose());
  return tree;
});

/** The tree's settings with staff (alice, carol) as help desk and contractors (bob) unmapped. */
const settingsOf = (
  tree: LdapTree,
  roles: Record<string, unknown> = { [tree.groupDn('staff')]: 'helpdesk' },
) => ({
  ...tree.settings,
  DEA_CONSOLE_LDAP_ROLES: JSON.stringify(roles),
});

/** The console's password step; the session's headers when it opened one. */
async function signIn(t: TestApp, username: string, password: string) {
  const answer = await t.app.inject({
    method: 'POST',
    url: `${BASE}/session`,
    payload: { username, password },
    remoteAddress: '198.51.100.9',
  });
  const cookies = Object.fromEntries(answer.cookies.map((cookie) => [cookie.name, cookie.value]));
  const sessionId = cookies.dea_console ?? '';
  const headers = {
    cookie: `dea_console=${sessionId}; dea_console_token=${cookies.dea_console_token ?? ''}`,
    'x-console-token': cookies.dea_console_token ?? '',
  };
  return {
    answer,
    /** The passkey step, as the browser would do it (console-passkey.spec.ts): marked in the store. */
    passkey: () => t.services.store.console.markPasskey(sha256(sessionId), t.clock.now()),
    get: (url: string) => t.app.inject({ method: 'GET', url: `${BASE}${url}`, headers }),
    post: (url: string, payload: Record<string, unknown> = {}) =>
      t.app.inject({ method: 'POST', url: `${BASE}${url}`, headers, payload }),
  };
}

describe.each(STORE_KINDS)('console roles from directory groups on %s', (kind) => {
  directoryTest.override('storeKind', kind);

  directoryTest(
    'a first directory URL that takes connections and never answers: console sign-ins get their role through the next, meeting it once',
    async ({ startApp, tree }) => {
      const hung = await tcpFront(tree.settings.DEA_LDAP_URL ?? '', 'silent');
      try {
        const t = await startApp({
          ...settingsOf(tree),
          DEA_LDAP_URL: `${hung.url},${tree.settings.DEA_LDAP_URL}`,
          DEA_LDAP_TIMEOUT_SECONDS: '1',
        });
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const alice = await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password);
          expect(alice.answer.json()).toMatchObject({ error: 0 });
          expect((await alice.get('/me')).json()).toMatchObject({ result: { role: 'helpdesk' } });
        }
        expect(hung.connections()).toBe(1);
      } finally {
        await hung.close();
      }
    },
  );

  directoryTest(
    "the directory's groups, nested ones too, give the role: a member signs in with the directory password, someone in no mapped group is told so",
    async ({ startApp, tree }) => {
      const t = await startApp(
        settingsOf(tree, {
          [tree.groupDn('staff')]: 'helpdesk',
          // Nested: alice is in staff, staff in vpn.
          [tree.groupDn('vpn')]: { role: 'auditor', scope: ['VPN'] },
        }),
      );
      const wrong = await signIn(t, 'alice', 'not her password');
      expect(wrong.answer.json()).toMatchObject({ error: 3 });
      expect(wrong.answer.json<{ message: string }>().message).not.toContain('directory groups');
      const alice = await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password);
      expect(alice.answer.json()).toMatchObject({ error: 0, result: { next: 'register-passkey' } });
      // Past the password only: nothing but the passkey steps.
      expect((await alice.get('/helpdesk/users?q=al')).json<{ error: number }>().error).not.toBe(0);
      expect((await alice.get('/me')).json()).toMatchObject({
        result: { username: 'alice', displayName: 'Alice Archer', role: 'helpdesk', passkeyVerified: false },
      });
      await alice.passkey();
      expect((await alice.get('/helpdesk/users?q=al')).json()).toMatchObject({ error: 0 });

      const bob = await signIn(t, 'bob', DIRECTORY_PEOPLE.bob.password);
      expect(bob.answer.json()).toMatchObject({
        error: 3,
        message: expect.stringContaining('none of your directory groups gives a role in the console'),
      });
      expect(bob.answer.cookies.find((cookie) => cookie.name === 'dea_console')).toBeUndefined();
      expect(await t.services.store.audit.list({ event: 'console.signin_failed', limit: 1 })).toMatchObject([
        { details: { reason: 'unmapped', groups: [tree.groupDn('contractors').toLowerCase()] } },
      ]);
    },
  );

  if (kind === 'postgres')
    directoryTest(
      "sign-ins at once are not refused when another sign-in's success clears the limits' rows meanwhile",
      async ({ startApp, tree, expect }) => {
        const t = await startApp({
          ...settingsOf(tree),
          DEA_SIGNIN_MAX_FAILURES: '20',
          // Room for the eight to wait on the rows at once.
          DEA_DB_POOL_SIZE: '12',
          DEA_SIGNIN_DB_CONNECTIONS: '8',
        });
        // A wrong password first: the rows of alice's limits (name, name and address, address) exist.
        expect((await signIn(t, 'alice', 'not her password')).answer.json()).toMatchObject({ error: 3 });
        // Another session holds those rows, as a sign-in counting its attempt does, while eight
        // sign-ins count theirs; then it removes them, as a sign-in whose password was right does
        // (SigninThrottle.succeeded), and ends.
        const holder = new pg.Client({ connectionString: t.testStore.databaseUrl });
        await holder.connect();
        try {
          await holder.query('begin');
          await holder.query('select * from signin_failures for update');
          const burst = Promise.all(
            Array.from({ length: 8 }, () => signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password)),
          );
          // Inside a transaction PostgreSQL keeps its first view of pg_stat_activity: cleared each time.
          const lockWaiters = async () => {
            await holder.query('select pg_stat_clear_snapshot()');
            return Number(
              (
                await holder.query<{ count: string }>(
                  "select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
                )
              ).rows[0]?.count,
            );
          };
          await expect.poll(lockWaiters, { timeout: 60_000 }).toBe(8);
          await holder.query('delete from signin_failures');
          await holder.query('commit');
          const answers = (await burst).map((each) => each.answer.json<{ error: number }>().error);
          expect(answers).toEqual(Array.from({ length: 8 }, () => 0));
          expect(await t.services.store.console.listAccounts()).toHaveLength(1);
        } finally {
          await holder.end();
        }
      },
      120_000,
    );
});
