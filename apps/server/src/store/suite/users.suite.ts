import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { User } from '../store.js';
import { storeCase, T0 } from './store-fixture.js';

/** Users: create, find, list, update, remove, sign-in times. */
export function usersSuite(): void {
  describe.concurrent('users', () => {
    storeCase(
      'creates a user and finds it by id and by username',
      async ({ store, expect, addUser, expectTimesAreNumbers }) => {
        const user = await addUser({ username: usernameOrThrow('alice'), fullName: 'Alice A', locale: 'de' });
        const expected: User = {
          id: user.id,
          username: usernameOrThrow('alice'),
          passwordHash: user.passwordHash,
          fullName: 'Alice A',
          locale: 'de',
          timeZone: null,
          disabled: false,
          createdAt: T0,
          lastLoginAt: null,
          currentLoginAt: null,
          source: 'local',
          externalId: null,
          givenName: null,
          familyName: null,
          primaryEmail: null,
          primaryPhone: null,
          displayName: null,
          formattedName: null,
          updatedAt: null,
        };
        const byId = await store.users.findById(user.id);
        expect(byId).toEqual(expected);
        expectTimesAreNumbers(byId!);
        expect(await store.users.findByUsername(usernameOrThrow('alice'))).toEqual(expected);
        expect(await store.users.findById(newId())).toBeUndefined();
        expect(await store.users.findByUsername(usernameOrThrow('nobody'))).toBeUndefined();
        // The username match is exact.
        expect(await store.users.findByUsername(usernameOrThrow('alic'))).toBeUndefined();
      },
    );

    storeCase(
      'pages through a source’s users’ ids and external ids, by id, none twice and none left out',
      async ({ store, expect, addUser }) => {
        await addUser();
        const sourced = [];
        for (let index = 0; index < 5; index += 1)
          sourced.push(await addUser({ source: 'ldap', externalId: `entry-${index}` }));
        const pages = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.users.externalIdsOfSource('ldap', after, 2);
          if (page.length === 0) break;
          pages.push(page);
          after = page.at(-1)?.id;
        }
        expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
        expect(pages.flat()).toEqual(
          sourced
            .map((user) => ({ id: user.id, externalId: user.externalId }))
            .sort((a, b) => (a.id < b.id ? -1 : 1)),
        );
      },
    );

    storeCase(
      'keeps where a user comes from and finds it by its id in that source, renamed or not',
      async ({ store, expect, addUser }) => {
        const local = await addUser();
        const fromDirectory = await addUser({ source: 'ldap', externalId: 'uuid-1' });
        await addUser({ source: 'scim', externalId: 'uuid-1' });
        expect(await store.users.findByExternalId('ldap', 'uuid-1')).toMatchObject({
          id: fromDirectory.id,
          source: 'ldap',
          externalId: 'uuid-1',
        });
        expect(await store.users.findByExternalId('import', 'uuid-1')).toBeUndefined();
        await expect(addUser({ source: 'ldap', externalId: 'uuid-1' })).rejects.toThrow();
        expect(await store.users.update(fromDirectory.id, { username: usernameOrThrow('renamed') })).toBe(
          true,
        );
        expect(await store.users.findByExternalId('ldap', 'uuid-1')).toMatchObject({ username: 'renamed' });
        expect((await store.users.listOfSource('ldap')).map((user) => user.id)).toEqual([fromDirectory.id]);
        expect((await store.users.listOfSource('local')).map((user) => user.id)).toEqual([local.id]);
        const group = { id: newId(), name: 'VPN', priority: 1, source: 'ldap' as const };
        await store.groups.create(group);
        await store.groups.addMember(group.id, fromDirectory.id);
        expect(await store.groups.listOfUser(fromDirectory.id)).toEqual([group]);
        expect(await store.groups.listOfUser(local.id)).toEqual([]);
        expect(await store.users.update(local.id, { source: 'import', externalId: local.username })).toBe(
          true,
        );
        expect(await store.users.findByExternalId('import', local.username)).toMatchObject({
          id: local.id,
          source: 'import',
        });
      },
    );

    storeCase(
      'lists users by username and counts them',
      async ({ store, expect, addUser, expectTimesAreNumbers }) => {
        expect(await store.users.list()).toEqual([]);
        expect(await store.users.count()).toBe(0);
        await addUser({ username: usernameOrThrow('carol') });
        await addUser({ username: usernameOrThrow('alice') });
        await addUser({ username: usernameOrThrow('bob') });
        const users = await store.users.list();
        expect(users.map((user) => user.username)).toEqual(['alice', 'bob', 'carol']);
        for (const user of users) expectTimesAreNumbers(user);
        const count = await store.users.count();
        expect(count).toBe(3);
        expect(typeof count).toBe('number');
      },
    );

    storeCase('refuses a second user with the same username', async ({ store, expect, addUser }) => {
      const first = await addUser({ username: usernameOrThrow('alice') });
      await expect(
        store.users.create({ ...first, id: newId(), fullName: 'Another Alice' }),
      ).rejects.toThrow();
      expect(await store.users.count()).toBe(1);
      expect((await store.users.findByUsername(usernameOrThrow('alice')))?.id).toBe(first.id);
    });

    storeCase('updates each field on its own and leaves the others', async ({ store, expect, addUser }) => {
      const user = await addUser({ fullName: 'Old Name', locale: 'en', passwordHash: 'old-hash' });
      const read = async (): Promise<User> => (await store.users.findById(user.id))!;
      const before = await read();

      expect(await store.users.update(user.id, { fullName: 'New Name' })).toBe(true);
      expect(await read()).toEqual({ ...before, fullName: 'New Name' });

      expect(await store.users.update(user.id, { locale: 'fr' })).toBe(true);
      expect(await read()).toEqual({ ...before, fullName: 'New Name', locale: 'fr' });

      expect(await store.users.update(user.id, { disabled: true })).toBe(true);
      expect(await read()).toEqual({ ...before, fullName: 'New Name', locale: 'fr', disabled: true });

      expect(await store.users.update(user.id, { passwordHash: 'new-hash' })).toBe(true);
      expect(await read()).toEqual({
        ...before,
        fullName: 'New Name',
        locale: 'fr',
        disabled: true,
        passwordHash: 'new-hash',
      });

      expect(await store.users.update(user.id, { disabled: false, fullName: 'Both' })).toBe(true);
      expect(await read()).toEqual({
        ...before,
        fullName: 'Both',
        locale: 'fr',
        disabled: false,
        passwordHash: 'new-hash',
      });
    });

    storeCase('answers whether the user exists on update', async ({ store, expect, addUser }) => {
      const user = await addUser();
      expect(await store.users.update(newId(), { fullName: 'Ghost' })).toBe(false);
      expect(await store.users.update(user.id, {})).toBe(true);
      expect(await store.users.update(newId(), {})).toBe(false);
      // An update of another user changes nothing here.
      expect((await store.users.findById(user.id))?.fullName).toBe(user.fullName);
    });

    storeCase('removes a user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      expect(await store.users.remove(user.id)).toBe(true);
      expect(await store.users.findById(user.id)).toBeUndefined();
      expect(await store.users.findByUsername(user.username)).toBeUndefined();
      expect(await store.users.remove(user.id)).toBe(false);
      expect(await store.users.count()).toBe(1);
      expect((await store.users.list()).map((u) => u.id)).toEqual([other.id]);
    });

    storeCase(
      'moves the current sign-in to the last one on each sign-in',
      async ({ store, expect, addUser, expectTimesAreNumbers }) => {
        const user = await addUser();
        const first = await store.users.recordSignIn(user.id, T0 + 1_000);
        expect(first?.lastLoginAt).toBeNull();
        expect(first?.currentLoginAt).toBe(T0 + 1_000);
        expectTimesAreNumbers(first!);

        const second = await store.users.recordSignIn(user.id, T0 + 2_000);
        expect(second?.lastLoginAt).toBe(T0 + 1_000);
        expect(second?.currentLoginAt).toBe(T0 + 2_000);
        expectTimesAreNumbers(second!);

        const third = await store.users.recordSignIn(user.id, T0 + 3_000);
        expect(third?.lastLoginAt).toBe(T0 + 2_000);
        expect(third?.currentLoginAt).toBe(T0 + 3_000);

        const stored = await store.users.findById(user.id);
        expect(stored).toEqual(third);
        expect(stored).toMatchObject({ id: user.id, username: user.username, createdAt: T0 });
        expect(await store.users.recordSignIn(newId(), T0)).toBeUndefined();
      },
    );
  });
}
