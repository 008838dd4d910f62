import { describe } from 'vitest';
import { usernameOrThrow } from '@dea/contract';
import type { Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { addStoredUser, identityOf } from '../../testing/identity.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ProvisionError, type SourcedUser } from './provision-user.js';
import type { DirectoryNames } from './user-directory.js';

const T0 = Date.UTC(2026, 0, 5, 9);

const sourced = (name: string, extra: Partial<SourcedUser> = {}): SourcedUser => ({
  source: 'import',
  externalId: `id-${name}`,
  username: name,
  fullName: `Person ${name}`,
  disabled: false,
  channels: { email: `${name}@example.com` },
  groups: { managed: ['Staff'], memberOf: ['Staff'] },
  ...extra,
});

const addUser = (store: Store, username: string, source: UserSource = 'local') =>
  addStoredUser(store, username, T0, source);

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** Everything a refusal must leave as it was: the users, channels, groups and the audit trail. */
async function snapshot(store: Store) {
  const users = await store.users.list();
  return {
    users,
    channels: await Promise.all(users.map((user) => store.channels.listOfUser(user.id))),
    groups: await store.groups.list(),
    entries: await store.audit.list({ limit: 1000 }),
  };
}

describe.each(STORE_KINDS)("a source's person and the users it does not own, on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a name a local user has is refused to a source, naming the owner, and nothing is written',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      await addUser(store, 'ann');
      const before = await snapshot(store);
      const refused = await refusalOf(provisioning.provision(sourced('ann'), 'import'));
      expect(refused).toBeInstanceOf(ProvisionError);
      expect((refused as Error).message).toBe(
        'the user name ann belongs to a local user; remove or rename that one first',
      );
      expect(await snapshot(store)).toEqual(before);
    },
  );

  storeTest.concurrent(
    "a name another source's user has is refused: the directory's user is not SCIM's to take",
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      await addUser(store, 'dirk', 'ldap');
      const before = await snapshot(store);
      const refused = await refusalOf(
        provisioning.provision(sourced('dirk', { source: 'scim' }), 'scim:idp'),
      );
      expect((refused as Error).message).toBe(
        'the user name dirk belongs to a ldap user; remove or rename that one first',
      );
      expect(await snapshot(store)).toEqual(before);
    },
  );

  storeTest.concurrent(
    'an entry replaced at the source (the same name, a new id) is refused until the old user is removed',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, people } = identityOf(store, () => T0);
      const { user } = await provisioning.provision(sourced('ann'), 'import');
      const refused = await refusalOf(
        provisioning.provision(sourced('ann', { externalId: 'id-ann-2' }), 'import'),
      );
      expect((refused as Error).message).toMatch(
        /^the user name ann belongs to another import user \(id-ann; this one is id-ann-2\): its entry was replaced at the source/,
      );
      expect((await store.users.findById(user.id))?.externalId).toBe('id-ann');
      await people.remove({ door: 'import', actor: 'import' }, user.id);
      const again = await provisioning.provision(sourced('ann', { externalId: 'id-ann-2' }), 'import');
      expect(again.outcome).toBe('created');
      expect(again.user.id).not.toBe(user.id);
    },
  );

  storeTest.concurrent(
    "adopting takes a local user over, keeping their password, audited as adopted; without it they stay the administrators'",
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      const ann = await addUser(store, 'ann');
      const adopted = await provisioning.provision(sourced('ann', { channels: {} }), 'import', {
        adoptLocal: true,
      });
      expect(adopted.outcome).toBe('updated');
      expect(await store.users.findById(ann)).toMatchObject({
        source: 'import',
        externalId: 'id-ann',
        passwordHash: 'hash-0',
        fullName: 'Person ann',
      });
      const updated = (await store.audit.list({ userId: ann, event: 'user.updated', limit: 10 })).reverse();
      expect(updated.map((entry) => entry.details)).toEqual([
        { source: 'import', adoptedFrom: 'local' },
        { source: 'import', fields: ['fullName'] },
      ]);
      // From then on the import's: the administrators no longer change the name.
      await expect(
        identityOf(store, () => T0).people.update({ door: 'local', actor: 'cli' }, ann, { fullName: 'Ann' }),
      ).rejects.toThrow(/comes from the import file/);
    },
  );

  storeTest.concurrent(
    "only the import adopts: the directory's or SCIM's user of that name is never taken over",
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      await addUser(store, 'sam', 'scim');
      const refused = await refusalOf(provisioning.provision(sourced('sam'), 'import', { adoptLocal: true }));
      expect((refused as Error).message).toMatch(/belongs to a scim user/);
      // And the directory may not take a local user over: the ownership table gives `source` to the import alone.
      await addUser(store, 'lou');
      const byDirectory = await refusalOf(
        provisioning.provision(sourced('lou', { source: 'ldap' }), 'directory', { adoptLocal: true }),
      );
      expect(byDirectory).toMatchObject({ name: 'OwnershipRefused', owner: 'local', door: 'ldap' });
      expect((await store.users.findByUsername(usernameOrThrow('lou')))?.source).toBe('local');
    },
  );

  storeTest.concurrent(
    'a person who must be new (SCIM POST) is refused when the source already has them',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      await provisioning.provision(sourced('ann', { source: 'scim' }), 'scim:idp');
      const refused = await refusalOf(
        provisioning.provision(sourced('ann', { source: 'scim', fullName: 'Other' }), 'scim:idp', {
          mustCreate: true,
        }),
      );
      expect((refused as Error).message).toBe('the user ann exists already');
      expect((await store.users.findByUsername(usernameOrThrow('ann')))?.fullName).toBe('Person ann');
    },
  );

  storeTest.concurrent(
    'a name the profile refuses is no user: refused as invalid before anything is read or written',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      const refused = await refusalOf(provisioning.provision(sourced('two words'), 'import'));
      expect(refused).toMatchObject({ name: 'ProvisionError', kind: 'invalid' });
      expect(await store.users.list()).toEqual([]);
    },
  );

  storeTest.concurrent(
    "a name the directory has is the directory's: another source may not create it, the directory may",
    async ({ testStore: { store }, expect }) => {
      const directory: DirectoryNames = { hasUser: async (name) => name === 'dirk' };
      const { provisioning } = identityOf(store, () => T0, directory);
      const refused = await refusalOf(provisioning.provision(sourced('dirk'), 'import'));
      expect((refused as Error).message).toMatch(
        /^the user name dirk belongs to the directory \(DEA_LDAP_URL\)/,
      );
      // A dry run asks too, and says so without writing.
      expect(
        await refusalOf(provisioning.provision(sourced('dirk'), 'import', { dryRun: true })),
      ).toBeInstanceOf(ProvisionError);
      expect(await store.users.list()).toEqual([]);
      expect((await provisioning.provision(sourced('dirk', { source: 'ldap' }), 'directory')).outcome).toBe(
        'created',
      );
    },
  );

  storeTest.concurrent(
    'a directory that cannot be asked creates nobody, and says it was unavailable',
    async ({ testStore: { store }, expect }) => {
      const directory: DirectoryNames = {
        hasUser: async () => {
          throw new Error('connect ECONNREFUSED');
        },
      };
      const { provisioning } = identityOf(store, () => T0, directory);
      const refused = await refusalOf(provisioning.provision(sourced('ann'), 'import'));
      expect(refused).toMatchObject({ name: 'ProvisionError', kind: 'unavailable' });
      expect((refused as Error).message).toMatch(
        /could not be asked .* \(connect ECONNREFUSED\): nothing was created/,
      );
      expect(await store.users.list()).toEqual([]);
    },
  );
});

describe.each(STORE_KINDS)('a dry run and a person the source no longer has, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a dry run answers what would happen to a new or changed person and writes nothing',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      const planned = await provisioning.provision(sourced('ann', { locale: undefined }), 'import', {
        dryRun: true,
      });
      expect(planned).toMatchObject({
        outcome: 'created',
        user: { id: '', username: 'ann', locale: 'en', source: 'import', externalId: 'id-ann' },
      });
      expect(await snapshot(store)).toEqual({ users: [], channels: [], groups: [], entries: [] });

      await provisioning.provision(sourced('bob'), 'import');
      const before = await snapshot(store);
      const change = sourced('bob', {
        fullName: 'Bob B',
        disabled: true,
        channels: { email: null },
        groups: { managed: ['Staff'], memberOf: [] },
      });
      expect((await provisioning.provision(change, 'import', { dryRun: true })).outcome).toBe('updated');
      expect(await snapshot(store)).toEqual(before);
    },
  );

  storeTest.concurrent(
    'a person no longer at the source is disabled and leaves its groups, in one entry each, kept for the trail',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, groups } = identityOf(store, () => T0);
      const { user } = await provisioning.provision(
        sourced('ann', { groups: { managed: ['Staff', 'VPN'], memberOf: ['Staff', 'VPN'] } }),
        'import',
      );
      const pilots = await groups.create({ name: 'Pilots', priority: 0 }, { door: 'local', actor: 'cli' });
      await groups.changeMember(pilots, user.id, true, { door: 'local', actor: 'cli' });
      await store.sessions.create({ idHash: 'ann-1', userId: user.id, createdAt: T0, lastSeenAt: T0 });
      const since = (await store.audit.list({ limit: 1000 })).length;

      expect(await provisioning.disableMissing(user, 'import', { managedGroups: ['Staff', 'VPN'] })).toBe(
        true,
      );
      expect(await store.users.findById(user.id)).toMatchObject({ disabled: true });
      expect(await store.sessions.listOpenOfUser(user.id)).toEqual([]);
      expect((await store.groups.listOfUser(user.id)).map((group) => group.name)).toEqual(['Pilots']);
      const entries = (await store.audit.list({ limit: 1000 })).slice(0, -since || undefined).reverse();
      expect(entries.map(({ event, actor, details }) => ({ event, actor, details }))).toEqual([
        {
          event: 'user.disabled',
          actor: 'import',
          details: {
            source: 'import',
            reason: 'not in source',
            sessionsEnded: 1,
            registrationSessionsEnded: 0,
          },
        },
        {
          event: 'user.groups_left',
          actor: 'import',
          details: {
            source: 'import',
            reason: 'not in source',
            groups: expect.arrayContaining(['Staff', 'VPN']),
          },
        },
      ]);
    },
  );

  storeTest.concurrent(
    'a person disabled already is left as they are; a dry run would disable and writes nothing',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      const { user } = await provisioning.provision(sourced('ann'), 'import');
      const before = await snapshot(store);
      expect(
        await provisioning.disableMissing(user, 'import', { dryRun: true, managedGroups: ['Staff'] }),
      ).toBe(true);
      expect(await snapshot(store)).toEqual(before);
      const disabled = { ...user, disabled: true };
      expect(await provisioning.disableMissing(disabled, 'import', { managedGroups: ['Staff'] })).toBe(false);
      expect(await snapshot(store)).toEqual(before);
    },
  );

  storeTest.concurrent(
    'a person the source has again is enabled and back in its groups',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      const { user } = await provisioning.provision(sourced('ann'), 'import');
      await provisioning.disableMissing(user, 'import', { managedGroups: ['Staff'] });
      const back = await provisioning.provision(sourced('ann'), 'import');
      expect(back).toMatchObject({ outcome: 'updated', user: { id: user.id, disabled: false } });
      expect((await store.groups.listOfUser(user.id)).map((group) => group.name)).toEqual(['Staff']);
    },
  );
});
