import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { GroupOwnershipError } from './group-ownership.js';
import { Groups, MAX_GROUP_NAME, MAX_GROUP_PRIORITY } from './groups.js';
import type { ChangeBy } from './user-ownership.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };
const SCIM: ChangeBy = { door: 'scim', actor: 'scim:idp', details: { source: 'scim' } };
const DIRECTORY: ChangeBy = { door: 'ldap', actor: 'directory', details: { source: 'ldap' } };

async function addUser(store: Store, username: string): Promise<string> {
  const id = newId(T0);
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: 'hash',
    fullName: username,
    locale: 'en',
    createdAt: T0,
  });
  return id;
}

/** A user of each name, their ids in order. */
async function usersNamed<const Names extends readonly string[]>(
  store: Store,
  ...names: Names
): Promise<{ [Index in keyof Names]: string }> {
  const ids: string[] = [];
  for (const name of names) ids.push(await addUser(store, name));
  return ids as { [Index in keyof Names]: string };
}

/** The groups module over the test's store, and the group entries it wrote, oldest first. */
function groupsOf(store: Store) {
  const groups = new Groups(store, () => T0);
  const entries = async () =>
    (await store.audit.list({ limit: 1000 }))
      .filter((entry) => entry.event.startsWith('group.') || entry.event.startsWith('user.groups'))
      .reverse()
      .map(({ event, actor, userId, details }) => ({ event, actor, userId, details }));
  const membersOf = async (groupId: string) => (await store.groups.listMembers(groupId)).sort();
  return { groups, entries, membersOf };
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each(STORE_KINDS)('the rules of groups on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a name is trimmed and has 1 to 100 characters without a control character, for a new group and a rename alike',
    async ({ testStore: { store }, expect }) => {
      const { groups } = groupsOf(store);
      const longest = await groups.create({ name: ` ${'n'.repeat(MAX_GROUP_NAME)} `, priority: 0 }, OPERATOR);
      expect(longest.name).toHaveLength(100);
      for (const name of ['n'.repeat(MAX_GROUP_NAME + 1), '   ', 'Ops\nTeam', 'Tab\there'])
        await expect(
          groups.create({ name, priority: 0 }, OPERATOR),
          JSON.stringify(name),
        ).rejects.toMatchObject({
          kind: 'invalid',
        });
      await expect(groups.rename(longest, 'm'.repeat(MAX_GROUP_NAME + 1), OPERATOR)).rejects.toThrow(
        'the name must be 1 to 100 characters',
      );
      expect((await store.groups.list()).map((group) => group.name)).toEqual(['n'.repeat(100)]);
    },
  );

  storeTest.concurrent(
    'a priority is a whole number from -9999999 to 9999999',
    async ({ testStore: { store }, expect }) => {
      const { groups } = groupsOf(store);
      await groups.create({ name: 'Top', priority: MAX_GROUP_PRIORITY }, OPERATOR);
      await groups.create({ name: 'Bottom', priority: -MAX_GROUP_PRIORITY }, OPERATOR);
      for (const priority of [MAX_GROUP_PRIORITY + 1, -MAX_GROUP_PRIORITY - 1, 1.5, Number.NaN])
        await expect(groups.create({ name: `P ${priority}`, priority }, OPERATOR)).rejects.toThrow(
          'the priority must be a whole number from -9999999 to 9999999',
        );
      expect((await store.groups.list()).length).toBe(2);
    },
  );

  storeTest.concurrent(
    "a name another group has is refused as a conflict, to a new group and to a rename; the group's own name is no change",
    async ({ testStore: { store }, expect }) => {
      const { groups, entries } = groupsOf(store);
      const staff = await groups.create({ name: 'Staff', priority: 0 }, OPERATOR);
      await groups.create({ name: 'VPN', priority: 0 }, OPERATOR);
      await expect(groups.create({ name: ' Staff ', priority: 1 }, OPERATOR)).rejects.toMatchObject({
        kind: 'conflict',
        message: 'a group named "Staff" already exists',
      });
      await expect(groups.rename(staff, 'VPN', OPERATOR)).rejects.toMatchObject({ kind: 'conflict' });
      expect(await groups.rename(staff, ' Staff ', OPERATOR)).toMatchObject({ name: 'Staff' });
      expect((await entries()).map((entry) => entry.event)).toEqual(['group.created', 'group.created']);
    },
  );

  storeTest.concurrent(
    "a source's group by name: the one there is taken as it is, a new one made owned by the source at priority 0",
    async ({ testStore: { store }, expect }) => {
      const { groups, entries } = groupsOf(store);
      const staff = await groups.create({ name: 'Staff', priority: 7 }, OPERATOR);
      expect(await groups.named(' Staff ', DIRECTORY)).toMatchObject({
        id: staff.id,
        priority: 7,
        source: 'local',
      });
      expect(await groups.named('Night Shift', DIRECTORY)).toMatchObject({
        name: 'Night Shift',
        priority: 0,
        source: 'ldap',
      });
      expect((await entries()).map((entry) => [entry.event, entry.actor])).toEqual([
        ['group.created', 'cli'],
        ['group.created', 'directory'],
      ]);
    },
  );

  storeTest.concurrent(
    'a group is handed to SCIM and back by an operator only, to an operator or SCIM only; the same owner is no change',
    async ({ testStore: { store }, expect }) => {
      const { groups, entries } = groupsOf(store);
      const staff = await groups.create({ name: 'Staff', priority: 0 }, OPERATOR);
      await expect(groups.setOwner(staff, 'ldap', OPERATOR)).rejects.toThrow(
        'the owner must be local or scim',
      );
      expect(await groups.setOwner(staff, 'local', OPERATOR)).toEqual(staff);
      const handed = await groups.setOwner(staff, 'scim', OPERATOR);
      await expect(groups.setOwner(handed, 'local', SCIM)).rejects.toBeInstanceOf(GroupOwnershipError);
      expect((await store.groups.findByName('Staff'))?.source).toBe('scim');
      expect((await entries()).slice(1)).toEqual([
        {
          event: 'group.owner_set',
          actor: 'cli',
          userId: null,
          details: { group: 'Staff', from: 'local', owner: 'scim' },
        },
      ]);
    },
  );

  storeTest.concurrent(
    'a change made from a group read before another writer handed it over is refused, naming the new owner',
    async ({ testStore: { store }, expect }) => {
      const { groups } = groupsOf(store);
      const read = await groups.create({ name: 'Staff', priority: 0 }, OPERATOR);
      await groups.setOwner(read, 'scim', OPERATOR);
      const stale = await refusalOf(groups.setExternalId(read, 'ext-1', OPERATOR));
      expect(stale).toBeInstanceOf(GroupOwnershipError);
      expect((stale as Error).message).toMatch(/^group "Staff" is owned by the identity provider \(scim\)/);
      await expect(groups.setOwner(read, 'scim', OPERATOR)).rejects.toMatchObject({
        kind: 'conflict',
        message: 'group "Staff" was changed meanwhile (its owner is now scim); try again',
      });
      const now = await store.groups.findByName('Staff');
      expect(now?.source).toBe('scim');
      expect(now?.externalId ?? null).toBeNull();
    },
  );

  storeTest.concurrent(
    'SCIM gives a group handed to it back to the operators, and only its own: it keeps its members',
    async ({ testStore: { store }, expect }) => {
      const { groups, entries, membersOf } = groupsOf(store);
      const ann = await addUser(store, 'ann');
      const staff = await groups.create({ name: 'Staff', priority: 0, members: [ann] }, OPERATOR);
      await expect(groups.release(staff, SCIM)).rejects.toBeInstanceOf(GroupOwnershipError);
      await expect(groups.release(staff, OPERATOR)).rejects.toBeInstanceOf(GroupOwnershipError);
      const handed = await groups.setOwner(staff, 'scim', OPERATOR);
      expect(await groups.release(handed, SCIM)).toMatchObject({ source: 'local' });
      expect(await membersOf(staff.id)).toEqual([ann]);
      expect((await entries()).at(-1)).toEqual({
        event: 'group.owner_set',
        actor: 'scim:idp',
        userId: null,
        details: { source: 'scim', group: 'Staff', from: 'scim', owner: 'local', released: true },
      });
    },
  );

  storeTest.concurrent(
    "a group's source id is changed by whoever owns its name, audited from and to; the same id is no change",
    async ({ testStore: { store }, expect }) => {
      const { groups, entries } = groupsOf(store);
      const execs = await groups.create({ name: 'Execs', priority: 0, externalId: 'ext-1' }, SCIM);
      await expect(groups.setExternalId(execs, 'ext-2', OPERATOR)).rejects.toBeInstanceOf(
        GroupOwnershipError,
      );
      expect(await groups.setExternalId(execs, 'ext-1', SCIM)).toEqual(execs);
      expect(await groups.setExternalId(execs, 'ext-2', SCIM)).toMatchObject({ externalId: 'ext-2' });
      expect((await store.groups.findByName('Execs'))?.externalId).toBe('ext-2');
      expect(
        (await entries()).map((entry) => [entry.event, entry.details.from, entry.details.externalId]),
      ).toEqual([
        ['group.created', undefined, undefined],
        ['group.external_id_set', 'ext-1', 'ext-2'],
      ]);
    },
  );

  storeTest.concurrent(
    "SCIM's members are set among those it manages: the others stay, and only the changes are audited",
    async ({ testStore: { store }, expect }) => {
      const { groups, entries, membersOf } = groupsOf(store);
      const [ann, bob, cid, dan] = await usersNamed(store, 'ann', 'bob', 'cid', 'dan');
      const execs = await groups.create({ name: 'Execs', priority: 0, members: [ann, bob] }, SCIM);
      await groups.changeMember(execs, dan, true, OPERATOR);
      const managed = new Set([ann, bob, cid]);
      const changed = await groups.setMembers(execs, new Set([bob, cid]), (id) => managed.has(id), SCIM);
      expect(changed).toMatchObject({ added: [cid], removed: [ann] });
      expect(await membersOf(execs.id)).toEqual([bob, cid, dan].sort());
      expect((await entries()).slice(-2).map((entry) => [entry.event, entry.userId])).toEqual([
        ['group.member_added', cid],
        ['group.member_removed', ann],
      ]);
      expect(
        await groups.setMembers(execs, new Set([bob, cid]), (id) => managed.has(id), SCIM),
      ).toMatchObject({
        added: [],
        removed: [],
      });
    },
  );

  storeTest.concurrent(
    'a user leaves the named groups they are in together, in one entry; none of them is no entry',
    async ({ testStore: { store }, expect }) => {
      const { groups, entries } = groupsOf(store);
      const ann = await addUser(store, 'ann');
      for (const name of ['Staff', 'VPN', 'Pilots'])
        await groups.create({ name, priority: 0, members: [ann] }, OPERATOR);
      await groups.create({ name: 'Night Shift', priority: 0 }, OPERATOR);
      const before = (await entries()).length;
      const left = await groups.leaveAll(ann, ['Staff', 'VPN', 'Night Shift', 'Gone'], DIRECTORY);
      expect(left.sort()).toEqual(['Staff', 'VPN']);
      expect((await store.groups.listOfUser(ann)).map((group) => group.name)).toEqual(['Pilots']);
      expect((await entries()).slice(before)).toEqual([
        {
          event: 'user.groups_left',
          actor: 'directory',
          userId: ann,
          details: { source: 'ldap', groups: expect.arrayContaining(['Staff', 'VPN']) },
        },
      ]);
      expect(await groups.leaveAll(ann, ['Staff', 'Night Shift'], DIRECTORY)).toEqual([]);
      expect((await entries()).length).toBe(before + 1);
    },
  );

  storeTest.concurrent(
    'SCIM takes no one out of a group it does not own, and nothing is written',
    async ({ testStore: { store }, expect }) => {
      const { groups, entries } = groupsOf(store);
      const ann = await addUser(store, 'ann');
      await groups.create({ name: 'Staff', priority: 0, members: [ann] }, OPERATOR);
      const before = await entries();
      await expect(groups.leaveAll(ann, ['Staff'], SCIM)).rejects.toBeInstanceOf(GroupOwnershipError);
      expect((await store.groups.listOfUser(ann)).map((group) => group.name)).toEqual(['Staff']);
      expect(await entries()).toEqual(before);
    },
  );

  storeTest.concurrent(
    'a group removed takes its memberships with it, its entry counting the members it had',
    async ({ testStore: { store }, expect }) => {
      const { groups, entries } = groupsOf(store);
      const [ann, bob] = await usersNamed(store, 'ann', 'bob');
      const staff = await groups.create({ name: 'Staff', priority: 0, members: [ann, bob] }, OPERATOR);
      expect(await groups.remove(staff, OPERATOR)).toBe(true);
      expect(await store.groups.listOfUser(ann)).toEqual([]);
      expect((await entries()).at(-1)).toEqual({
        event: 'group.removed',
        actor: 'cli',
        userId: null,
        details: { group: 'Staff', source: 'local', members: 2 },
      });
      await expect(groups.byId(staff.id)).rejects.toMatchObject({ kind: 'missing' });
    },
  );
  storeTest.concurrent(
    "a group the directory or the import made is the operators' to rename and remove; its members change by any source but SCIM",
    async ({ testStore: { store }, expect }) => {
      const { groups, membersOf } = groupsOf(store);
      const IMPORT: ChangeBy = { door: 'import', actor: 'import' };
      const [ann, bob] = await usersNamed(store, 'ann', 'bob');
      const mapped = await groups.named('Mapped', DIRECTORY);
      await expect(groups.rename(mapped, 'Renamed', DIRECTORY)).rejects.toThrow(
        'group "Mapped" is owned by the directory (ldap): its name may be changed only by an operator (local: the CLI or the console), not by the directory (ldap)',
      );
      await expect(groups.remove(mapped, IMPORT)).rejects.toBeInstanceOf(GroupOwnershipError);
      expect(await groups.changeMember(mapped, ann, true, IMPORT)).toBe(true);
      expect(await groups.changeMember(mapped, bob, true, OPERATOR)).toBe(true);
      await expect(groups.changeMember(mapped, bob, false, SCIM)).rejects.toBeInstanceOf(GroupOwnershipError);
      expect(await membersOf(mapped.id)).toEqual([ann, bob].sort());
      expect(await groups.rename(mapped, 'Renamed', OPERATOR)).toMatchObject({
        name: 'Renamed',
        source: 'ldap',
      });
      // A refusal of SCIM's rename says how an administrator hands the group over.
      const staff = await groups.create({ name: 'Staff', priority: 0 }, OPERATOR);
      await expect(groups.rename(staff, 'Mine', SCIM)).rejects.toThrow(
        /an administrator may hand it over with dea group owner "Staff" scim \(or the console's Administration\)$/,
      );
    },
  );
});
