import { usernameOrThrow } from '@dea/contract';
import { Attribute, Change } from 'ldapts';
import { inject, describe, vi } from 'vitest';
import { newId } from '../crypto/ids.js';
import { hashPassword } from '../crypto/password-hash.js';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { LdapDirectory } from './ldap-directory.js';
import { appTest } from '../testing/fixtures.js';
import { createLdapTree, DIRECTORY_PEOPLE } from '../testing/ldap-tree.js';
import { signInAttempt } from '../testing/sign-in-attempts.js';
import { spellingsOf } from '../testing/spellings.js';
import { STORE_KINDS } from '../testing/stores.js';
import { TEST_PASSWORD_HASH_COST, type TestApp } from '../testing/test-app.js';

// Vitest reads a fixture's dependencies from its first parameter's destructuring: none here.
// oxlint-disable-next-line no-empty-pattern
const directoryTest = appTest.extend('tree', async ({}, { onCleanup }) => {
  const tree = await createLdapTree(inject('ldap'));
  onCleanup(() => tree.dispose());
  return tree;
});

const signIn = (t: TestApp, username: string, password: string) =>
  signInAttempt(t, username, password, '203.0.113.50');

async function scim(t: TestApp) {
  const { key } = await createServiceKey(
    t.services.store,
    t.services.keys.serviceKey,
    'idp',
    ['scim'],
    t.clock.now(),
  );
  return (method: 'POST' | 'GET', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url: `/scim/v2${url}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/scim+json' },
      ...(payload !== undefined && { payload: JSON.stringify(payload) }),
    });
}

const scimUser = (userName: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName,
  displayName: 'Taken Over',
  password: 'a scim password of its own',
  active: true,
});

describe.each(STORE_KINDS)('a name belongs to one source, on %s', (kind) => {
  directoryTest.override('storeKind', kind);

  directoryTest(
    'the limits count on the directory entry: locked as "alice", the right password as another of her names or spellings gets 140',
    async ({ startApp, tree, expect }) => {
      const t = await startApp({
        ...tree.settings,
        DEA_SIGNIN_MAX_FAILURES: '3',
        DEA_SIGNIN_LOCK_MINUTES: '10',
      });
      // A second uid on Alice's entry: the directory finds her by either name.
      const admin = await tree.admin();
      await admin.modify(tree.dnOf('alice'), [
        new Change({
          operation: 'add',
          modification: new Attribute({ type: 'uid', values: ['alice.archer'] }),
        }),
      ]);
      await admin.unbind();
      const binds = vi.spyOn(LdapDirectory.prototype, 'passwordCheck');
      const searches = vi.spyOn(LdapDirectory.prototype, 'findUser');
      try {
        for (let attempt = 0; attempt < 3; attempt += 1)
          expect((await signIn(t, 'alice', 'wrong')).json()).toMatchObject({ error: 3 });
        for (const spelling of ['alice.archer', 'ALICE.ARCHER', 'ａｌｉｃｅ', 'Alice']) {
          const answer = await signIn(t, spelling, DIRECTORY_PEOPLE.alice.password);
          expect(answer.json(), spelling).toMatchObject({ error: 140 });
          expect(answer.cookies, spelling).toHaveLength(0);
        }
        expect(binds.mock.calls.filter(([dn]) => dn === tree.dnOf('alice'))).toHaveLength(3);
        // A compatibility form never reaches the directory, which would match it to "alice".
        const bold = `\u{1D41A}lice`;
        expect((await signIn(t, bold, DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({ error: 3 });
        expect(searches.mock.calls.map(([name]) => name)).not.toContain(bold);
        expect(searches.mock.calls.every(([name]) => name === usernameOrThrow(name))).toBe(true);
      } finally {
        binds.mockRestore();
        searches.mockRestore();
      }
      const locked = await t.services.store.audit.list({ event: 'signin.locked', limit: 100 });
      expect(locked.map((entry) => entry.details.limit)).toEqual(expect.arrayContaining(['entry-address']));
    },
  );

  directoryTest(
    '60 parallel spellings of a directory name from one address get at most DEA_SIGNIN_MAX_FAILURES binds',
    async ({ startApp, tree, expect }) => {
      const t = await startApp({ ...tree.settings, DEA_SIGNIN_MAX_FAILURES: '3' });
      const binds = vi.spyOn(LdapDirectory.prototype, 'passwordCheck');
      try {
        const answers = await Promise.all(spellingsOf('alice', 60).map((name) => signIn(t, name, 'wrong')));
        expect(answers.every((answer) => answer.json<{ error: number }>().error !== 0)).toBe(true);
        expect(binds.mock.calls.filter(([dn]) => dn === tree.dnOf('alice'))).toHaveLength(3);
      } finally {
        binds.mockRestore();
      }
      expect((await signIn(t, 'ＡＬＩＣＥ', DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({
        error: 140,
      });
    },
  );

  directoryTest(
    'SCIM, the import and the CLI cannot create a name the directory has, in any spelling; its directory password stays the one that signs in',
    async ({ startApp, tree, expect }) => {
      const t = await startApp(tree.settings);
      const call = await scim(t);
      for (const userName of ['bob', 'BOB', 'ｂob']) {
        const refused = await call('POST', '/Users', scimUser(userName));
        expect(refused.statusCode, userName).toBe(409);
        expect(refused.json(), userName).toMatchObject({
          scimType: 'uniqueness',
          detail: expect.stringContaining('belongs to the directory (DEA_LDAP_URL)'),
        });
      }
      expect(await t.services.store.users.findByUsername(usernameOrThrow('bob'))).toBeUndefined();
      // A name the directory does not have is SCIM's to create.
      expect((await call('POST', '/Users', scimUser('scim-only'))).statusCode).toBe(201);

      const cliAdd = await t.dea(
        ['user', 'add', '--username', 'Bob', '--full-name', 'Bob', '--password-stdin'],
        tree.settings,
        'a cli password long enough\n',
      );
      expect(cliAdd).toMatchObject({ code: 1, err: expect.stringContaining('belongs to the directory') });

      const file = `${t.testStore.dataDir}/people.csv`;
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, 'username,fullName\nＢＯＢ,Bob Import\nnew-person,New Person\n');
      const imported = await t.dea(['user', 'import', file], tree.settings);
      expect(imported.code).toBe(1);
      expect(`${imported.out}\n${imported.err}`).toContain('belongs to the directory');

      expect(await t.services.store.users.findByUsername(usernameOrThrow('bob'))).toBeUndefined();
      expect((await signIn(t, 'bob', 'a scim password of its own')).json()).toMatchObject({ error: 3 });
      expect((await signIn(t, 'bob', DIRECTORY_PEOPLE.bob.password)).json()).toMatchObject({
        error: 0,
        result: { username: 'bob' },
      });
      expect(await t.services.store.users.findByUsername(usernameOrThrow('bob'))).toMatchObject({
        source: 'ldap',
      });
    },
  );

  directoryTest(
    'a user of another source made before the directory was set, whose name the directory has, cannot sign in with its own password',
    async ({ startApp, tree, expect }) => {
      const t = await startApp(tree.settings);
      await t.services.store.users.create({
        id: newId(),
        username: usernameOrThrow('bob'),
        passwordHash: await hashPassword('a local password', TEST_PASSWORD_HASH_COST),
        fullName: 'Local Bob',
        locale: 'en',
        createdAt: t.clock.now(),
        source: 'scim',
        externalId: 'scim-bob',
      });
      expect((await signIn(t, 'bob', 'a local password')).json()).toMatchObject({ error: 3 });
      expect((await signIn(t, 'bob', DIRECTORY_PEOPLE.bob.password)).json()).toMatchObject({ error: 3 });
      const [failed] = await t.services.store.audit.list({ event: 'signin.failed', limit: 2 });
      expect(failed?.details).toMatchObject({ reason: 'name-owned-by-directory' });
    },
  );
});
