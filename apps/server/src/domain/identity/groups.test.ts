import { identityOf } from '../../testing/identity.js';
import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { Metrics } from '../../observability/metrics.js';
import { observedStore } from '../../observability/observed-store.js';
import { ScimGroups } from '../../scim/scim-groups.js';
import { ScimError } from '../../scim/scim-error.js';
import { SCIM } from '../../scim/scim-schemas.js';
import type { AuditEntry, Group, Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ProvisionError, type SourcedUser } from './provision-user.js';
import type { RuleError } from '../rule-error.js';
import { GROUP_OWNERSHIP, GroupOwnershipError } from './group-ownership.js';
import { Groups } from './groups.js';
import type { ChangeBy } from './user-ownership.js';

const OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };
const SCIM_CLIENT: ChangeBy = { door: 'scim', actor: 'scim:test', details: { source: 'scim' } };

async function addUser(store: Store, username: string, source: UserSource = 'local'): Promise<string> {
  const id = newId();
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: 'no password',
    fullName: `Full ${username}`,
    locale: 'en',
    createdAt: Date.now(),
    source,
    externalId: source === 'local' ? null : id,
  });
  return id;
}

const groupEntries = async (store: Store): Promise<AuditEntry[]> =>
  (await store.audit.list({ limit: 10_000 })).filter(
    (entry) => entry.event.startsWith('group.') || entry.event === 'policy.set',
  );

const sourced = (name: string, memberOf: string[]): SourcedUser => ({
  source: 'import',
  externalId: name,
  username: name,
  fullName: `Full ${name}`,
  disabled: false,
  channels: {},
  groups: { managed: memberOf, memberOf },
});

describe.each(STORE_KINDS)('the groups module on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest('each operation writes its change and exactly one audit entry', async ({ testStore }) => {
    const { store } = testStore;
    const groups = new Groups(store, Date.now);
    const erin = await addUser(store, 'erin');
    const count = async () => (await groupEntries(store)).length;

    const staff = await groups.create({ name: '  Staff ', priority: 5 }, OPERATOR);
    expect(staff).toMatchObject({ name: 'Staff', priority: 5, source: 'local' });
    expect(await count()).toBe(1);
    expect(await groups.changeMember(staff, erin, true, OPERATOR)).toBe(true);
    expect(await count()).toBe(2);
    // Nothing changes, nothing is audited.
    expect(await groups.changeMember(staff, erin, true, OPERATOR)).toBe(false);
    expect(await count()).toBe(2);
    const renamed = await groups.rename(staff, 'Employees', OPERATOR);
    expect(await count()).toBe(3);
    await groups.setPolicy(
      renamed,
      { category: 'Self Service', options: { codeLength: 8 }, changes: { codeLength: 8 } },
      OPERATOR,
      true,
    );
    expect(await count()).toBe(4);
    const handed = await groups.setOwner(renamed, 'scim', OPERATOR);
    expect(handed.source).toBe('scim');
    expect(await count()).toBe(5);
    expect(await groups.changeMember(handed, erin, false, OPERATOR)).toBe(true);
    expect(await count()).toBe(6);
    const back = await groups.setOwner(handed, 'local', OPERATOR);
    expect(await groups.remove(back, OPERATOR)).toBe(true);
    expect(await groups.remove(back, OPERATOR)).toBe(false);
    expect(await store.groups.findByName('Employees')).toBeUndefined();

    const entries = (await groupEntries(store)).reverse();
    expect(entries.map((entry) => entry.event)).toEqual([
      'group.created',
      'group.member_added',
      'group.renamed',
      'policy.set',
      'group.owner_set',
      'group.member_removed',
      'group.owner_set',
      'group.removed',
    ]);
    expect(entries[1]).toMatchObject({ userId: erin, actor: 'cli', details: { group: 'Staff' } });
    expect(entries[7]).toMatchObject({ details: { group: 'Employees', source: 'local', members: 0 } });
  });

  storeTest(
    'each entry it writes is told to the listeners (webhooks) and counted, with its stored id',
    async ({ testStore }) => {
      const told: { id: string; event: string }[] = [];
      const store = observedStore(testStore.store, new Metrics(), [(entry) => told.push(entry)]);
      const groups = new Groups(store, Date.now);
      const staff = await groups.create({ name: 'Staff', priority: 0 }, OPERATOR);
      const erin = await addUser(store, 'erin');
      await groups.changeMember(staff, erin, true, OPERATOR);
      await groups.changeMember(staff, erin, true, OPERATOR);
      const stored = (await groupEntries(store)).reverse();
      expect(told.map(({ id, event }) => ({ id, event }))).toEqual(
        stored.map(({ id, event }) => ({ id, event })),
      );
      expect(told.map((entry) => entry.event)).toEqual(['group.created', 'group.member_added']);
    },
  );

  storeTest('a change whose audit entry cannot be written leaves neither', async ({ testStore }) => {
    const { store } = testStore;
    const taken = newId();
    await store.audit.append({ id: taken, event: 'system.start' }, Date.now());
    const group: Group = { id: newId(), name: 'Half', priority: 0, source: 'local' };
    // The entry's id is taken: the insert of the entry fails after the group's row was written.
    await expect(
      store.groups.write(
        [{ change: { kind: 'create', group }, audit: { id: taken, event: 'group.created' } }],
        Date.now(),
      ),
    ).rejects.toThrow();
    expect(await store.groups.findByName('Half')).toBeUndefined();
    expect(await groupEntries(store)).toEqual([]);

    // Through the module: a group made with a member who is no user is not made, nor audited.
    const groups = new Groups(store, Date.now);
    await expect(
      groups.create(
        { name: 'Ghosts', priority: 0, members: [await addUser(store, 'erin'), newId()] },
        OPERATOR,
      ),
    ).rejects.toThrow();
    expect(await store.groups.findByName('Ghosts')).toBeUndefined();
    expect(await groupEntries(store)).toEqual([]);

    // SCIM's PUT: the new name and the members in one transaction, so neither when one fails.
    const execs = await groups.create({ name: 'Execs', priority: 0 }, SCIM_CLIENT);
    const made = (await groupEntries(store)).length;
    await expect(
      groups.replace(execs, { name: 'Board', wanted: new Set([newId()]) }, () => true, SCIM_CLIENT),
    ).rejects.toThrow();
    expect(await store.groups.findByName('Execs')).toMatchObject({ id: execs.id });
    expect(await groupEntries(store)).toHaveLength(made);
  });

  storeTest('SCIM can create no group with a name the rules refuse', async ({ testStore }) => {
    const { store } = testStore;
    const scim = new ScimGroups(store, new Groups(store, Date.now));
    for (const displayName of ['   ', 'x'.repeat(101), 'Ops\nTeam', 'Tab\there']) {
      const refused = await scim.create({ schemas: [SCIM.group], displayName }, 'scim:test').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, JSON.stringify(displayName)).toBeInstanceOf(ScimError);
      expect((refused as ScimError).status).toBe(400);
    }
    expect((await store.groups.list()).length).toBe(0);
    // The priority of every group holds for every door.
    await expect(
      new Groups(store, Date.now).create({ name: 'High', priority: 10_000_000 }, SCIM_CLIENT),
    ).rejects.toThrow(/priority must be a whole number/);
    const made = await scim.create({ schemas: [SCIM.group], displayName: ' Execs ' }, 'scim:test');
    expect(made).toMatchObject({ name: 'Execs', priority: 0, source: 'scim' });
    expect((await groupEntries(store)).map((entry) => entry.event)).toEqual(['group.created']);
  });

  storeTest('the import and the sync make no group with a name the rules refuse', async ({ testStore }) => {
    const { store } = testStore;
    const provisioning = identityOf(store, Date.now).provisioning;
    await expect(provisioning.provision(sourced('erin', ['x'.repeat(101)]), 'import')).rejects.toThrow(
      ProvisionError,
    );
    await expect(provisioning.provision(sourced('frank', ['Line\nbreak']), 'import')).rejects.toThrow(
      /group "Line\nbreak": the name must not hold a control character/,
    );
    expect(await store.groups.list()).toEqual([]);
    await provisioning.provision(sourced('gina', ['Imported']), 'import');
    expect(await store.groups.findByName('Imported')).toMatchObject({ source: 'import' });
    // The group made for her, and her membership in the one entry of her arrival (ADR 0044).
    expect((await groupEntries(store)).map((entry) => entry.event).reverse()).toEqual(['group.created']);
    expect(await store.audit.list({ event: 'user.created' })).toMatchObject([
      { details: { username: 'gina', groups: ['Imported'] } },
    ]);
  });

  storeTest(
    'a change the owner keeps is refused naming the owner, and changes nothing',
    async ({ testStore }) => {
      const { store } = testStore;
      const groups = new Groups(store, Date.now);
      const staff = await groups.create({ name: 'Staff', priority: 0 }, OPERATOR);
      const execs = await groups.create({ name: 'Execs', priority: 0 }, SCIM_CLIENT);
      const before = (await groupEntries(store)).length;

      const byScim = await groups.rename(staff, 'Mine', SCIM_CLIENT).catch((error: unknown) => error);
      expect(byScim).toBeInstanceOf(GroupOwnershipError);
      expect(byScim).toMatchObject({ kind: 'owned' });
      expect((byScim as RuleError).message).toMatch(/group "Staff" is owned by an operator \(local/);
      const byOperator = await groups.rename(execs, 'Board', OPERATOR).catch((error: unknown) => error);
      expect((byOperator as RuleError).message).toMatch(
        /group "Execs" is owned by the identity provider \(scim\): its name may be changed only by the identity provider.*dea group owner "Execs" local/,
      );
      await expect(groups.remove(execs, OPERATOR)).rejects.toThrow(/owned by the identity provider \(scim\)/);
      await expect(groups.setOwner(staff, 'scim', SCIM_CLIENT)).rejects.toThrow(/owned by an operator/);
      await expect(
        groups.setPolicy(staff, { category: 'Self Service', options: {}, changes: {} }, SCIM_CLIENT, false),
      ).rejects.toThrow(/its policies may be changed only by an operator/);
      await expect(
        groups.changeMember(staff, await addUser(store, 'erin'), true, { door: 'scim', actor: 'scim:test' }),
      ).rejects.toThrow(/owned by an operator/);

      expect((await store.groups.list()).map((group) => group.name).sort()).toEqual(['Execs', 'Staff']);
      expect((await groupEntries(store)).length).toBe(before);
      // Every owner has a row for every part.
      for (const parts of Object.values(GROUP_OWNERSHIP))
        expect(Object.keys(parts).sort()).toEqual(['members', 'name', 'owner', 'policies']);
    },
  );
});

describe.each(STORE_KINDS)('a group change made within a transaction of the store, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest('is part of it: rolled back with it, committed with it', async ({ testStore: { store } }) => {
    const create = (name: string) =>
      store.transaction(async (inner) => {
        await new Groups(inner, () => Date.now()).create({ name, priority: 1 }, OPERATOR);
        if (name === 'Undone') throw new Error('the rest of the change failed');
      });
    await expect(create('Undone')).rejects.toThrow('the rest of the change failed');
    expect(await store.groups.findByName('Undone')).toBeUndefined();
    expect(await groupEntries(store)).toEqual([]);
    await create('Kept');
    expect(await store.groups.findByName('Kept')).toBeDefined();
    expect((await groupEntries(store)).map((entry) => entry.event)).toEqual(['group.created']);
  });
});
