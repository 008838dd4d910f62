import { POLICY_CATEGORY_HELP_DESK, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { storeTest } from '../../testing/fixtures.js';
import { identityOf } from '../../testing/identity.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { Store } from '../../store/store.js';
import { ProvisionError } from './people.js';
import type { DirectoryNames } from './user-directory.js';
import type { ChangeBy } from './user-ownership.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };
const DIRECTORY: ChangeBy = { door: 'ldap', actor: 'directory' };

/** The identity module with a directory that has the names `held`, and the names it was asked about. */
function withDirectory(store: Store, held: readonly string[]) {
  const asked: string[] = [];
  const directory: DirectoryNames = {
    hasUser: async (name) => {
      asked.push(name);
      return held.includes(name);
    },
  };
  return { ...identityOf(store, () => T0, directory), asked };
}

describe.each(STORE_KINDS)("a user's name and who may help them, on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a rename to a name the directory has is refused to the administrators, and nothing changes',
    async ({ testStore: { store }, expect }) => {
      const { people } = withDirectory(store, ['dirk']);
      const { user } = await people.create(OPERATOR, { username: 'lou', fullName: 'Lou' });
      const refused = await people
        .update(OPERATOR, user.id, { username: 'Dirk' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ProvisionError);
      expect((refused as Error).message).toMatch(
        /^the user name dirk belongs to the directory \(DEA_LDAP_URL\)/,
      );
      expect((await store.users.findById(user.id))?.username).toBe('lou');
      expect(await store.audit.list({ userId: user.id, event: 'user.updated' })).toEqual([]);
      // Another name, one the directory does not have, is the administrators' to give.
      expect((await people.update(OPERATOR, user.id, { username: 'lou.b' })).changed).toEqual(['username']);
    },
  );

  storeTest.concurrent(
    'the directory renames its own users without being asked about the name; the same name is asked about by no one',
    async ({ testStore: { store }, expect }) => {
      const { people, asked } = withDirectory(store, ['dirk', 'dirk.new']);
      const { user } = await people.create(DIRECTORY, {
        username: 'dirk',
        fullName: 'Dirk',
        externalId: 'e-dirk',
      });
      expect(asked).toEqual([]);
      expect((await people.update(DIRECTORY, user.id, { username: 'dirk.new' })).changed).toEqual([
        'username',
      ]);
      expect(asked).toEqual([]);
      const { user: lou } = await people.create(OPERATOR, { username: 'lou', fullName: 'Lou' });
      expect(asked).toEqual(['lou']);
      expect((await people.update(OPERATOR, lou.id, { username: 'LOU', fullName: 'Lou B' })).changed).toEqual(
        ['fullName'],
      );
      expect(asked).toEqual(['lou']);
    },
  );

  storeTest.concurrent(
    'a directory that cannot be asked leaves the administrators without a new user, saying it was unavailable',
    async ({ testStore: { store }, expect }) => {
      const { people } = identityOf(store, () => T0, {
        hasUser: async () => {
          throw new Error('timeout');
        },
      });
      await expect(people.create(OPERATOR, { username: 'nina', fullName: 'Nina' })).rejects.toMatchObject({
        name: 'ProvisionError',
        kind: 'unavailable',
      });
      expect(await store.users.findByUsername(usernameOrThrow('nina'))).toBeUndefined();
      expect(await store.audit.list({ limit: 10 })).toEqual([]);
    },
  );

  storeTest.concurrent(
    'the help desk may help a user whose "Help Desk" policy names its role, administrators and agents alike without one, an auditor never',
    async ({ testStore: { store }, expect }) => {
      const { people, groups } = identityOf(store, () => T0);
      const { user: ann } = await people.create(OPERATOR, { username: 'ann', fullName: 'Ann' });
      const { user: vera } = await people.create(OPERATOR, { username: 'vera', fullName: 'Vera' });
      const board = await groups.create({ name: 'Board', priority: 0, members: [vera.id] }, OPERATOR);
      await groups.setPolicy(
        board,
        { category: POLICY_CATEGORY_HELP_DESK, options: { issuers: ['admin'] }, changes: {} },
        OPERATOR,
        false,
      );
      const may = async (role: 'admin' | 'helpdesk' | 'auditor', userId: string) =>
        people.helpDeskMayHelp(role, userId);
      expect([
        await may('admin', ann.id),
        await may('helpdesk', ann.id),
        await may('auditor', ann.id),
      ]).toEqual([true, true, false]);
      expect([await may('admin', vera.id), await may('helpdesk', vera.id)]).toEqual([true, false]);
    },
  );
});
