import { addStoredUser } from '../../testing/identity.js';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { PersonChannels } from './channels.js';
import { NoSuchUser } from './people.js';
import type { ChangeBy } from './user-ownership.js';
import { OwnershipRefused } from './user-ownership.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const BY_OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };

const addUser = (store: Store, username: string, source: UserSource = 'local') =>
  addStoredUser(store, username, T0, source);

describe.each(STORE_KINDS)("a person's channels on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'set and removed by their owner only, each with the updatedAt and its audit entry in one transaction',
    async ({ testStore: { store }, expect }) => {
      const channels = new PersonChannels(store, () => T0 + 1000);
      const ann = await addUser(store, 'ann');
      const set = await channels.set(BY_OPERATOR, ann, 'email', 'ann@example.org');
      expect(set).toMatchObject({ changed: true, channel: { key: 'email', address: 'ann@example.org' } });
      expect((await store.users.findById(ann))?.updatedAt).toBe(T0 + 1000);
      expect(await channels.set(BY_OPERATOR, ann, 'email', 'ann@example.org')).toMatchObject({
        changed: false,
      });
      expect((await channels.remove(BY_OPERATOR, ann, 'email')).changed).toBe(true);
      expect((await channels.remove(BY_OPERATOR, ann, 'email')).changed).toBe(false);
      expect((await store.audit.list({ userId: ann })).map((entry) => [entry.event, entry.actor])).toEqual([
        ['channel.removed', 'cli'],
        ['channel.set', 'cli'],
      ]);

      // Another source's person: refused before anything is written.
      const dirk = await addUser(store, 'dirk', 'ldap');
      await expect(channels.set(BY_OPERATOR, dirk, 'email', 'dirk@example.org')).rejects.toThrow(
        OwnershipRefused,
      );
      expect(await store.channels.listOfUser(dirk)).toEqual([]);

      // An audit entry that cannot be written takes the channel back with it.
      const unwritable: ChangeBy = { ...BY_OPERATOR, details: { size: 1n } };
      await expect(channels.set(unwritable, ann, 'mobile', '+491705550100')).rejects.toThrow();
      expect(await store.channels.listOfUser(ann)).toEqual([]);
      expect((await store.users.findById(ann))?.updatedAt).toBe(T0 + 1000);
    },
  );
  storeTest.concurrent(
    'a changed address gets a new reference; the same address again keeps it and writes nothing',
    async ({ testStore: { store }, expect }) => {
      const channels = new PersonChannels(store, () => T0 + 1000);
      const ann = await addUser(store, 'ann');
      const first = (await channels.set(BY_OPERATOR, ann, 'mobile', '+491705550100')).channel;
      const same = await channels.set(BY_OPERATOR, ann, 'mobile', '+491705550100');
      expect(same).toMatchObject({ changed: false, channel: { id: first?.id } });
      const changed = (await channels.set(BY_OPERATOR, ann, 'mobile', '+491705550199')).channel;
      expect(changed?.id).not.toBe(first?.id);
      expect(await store.channels.listOfUser(ann)).toMatchObject([
        { key: 'mobile', address: '+491705550199', origin: 'source' },
      ]);
      expect((await store.audit.list({ userId: ann })).map((entry) => entry.details)).toEqual([
        { key: 'mobile' },
        { key: 'mobile' },
      ]);
    },
  );

  storeTest.concurrent(
    "a source sets its own people's channels and no one else's; a person not there is refused as missing",
    async ({ testStore: { store }, expect }) => {
      const channels = new PersonChannels(store, () => T0);
      const directory: ChangeBy = { door: 'ldap', actor: 'directory', details: { source: 'ldap' } };
      const dirk = await addUser(store, 'dirk', 'ldap');
      const lou = await addUser(store, 'lou');
      expect((await channels.set(directory, dirk, 'email', 'dirk@example.org')).changed).toBe(true);
      const refused = await channels
        .set(directory, lou, 'email', 'lou@example.org')
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OwnershipRefused);
      expect((refused as Error).message).toBe(
        "lou's channel list comes from the administrators (dea user or the console); change it there",
      );
      await expect(channels.remove(BY_OPERATOR, dirk, 'email')).rejects.toBeInstanceOf(OwnershipRefused);
      await expect(channels.set(BY_OPERATOR, newId(T0), 'email', 'x@example.org')).rejects.toBeInstanceOf(
        NoSuchUser,
      );
      expect(await store.channels.listOfUser(lou)).toEqual([]);
      expect((await store.channels.listOfUser(dirk)).map((channel) => channel.address)).toEqual([
        'dirk@example.org',
      ]);
      expect(await store.audit.list({ userId: dirk })).toMatchObject([
        { event: 'channel.set', actor: 'directory', details: { source: 'ldap', key: 'email' } },
      ]);
    },
  );

  storeTest.concurrent(
    "a change inside a caller's transaction is part of it: rolled back with it, the entry too",
    async ({ testStore: { store }, expect }) => {
      const channels = new PersonChannels(store, () => T0);
      const ann = await addUser(store, 'ann');
      await channels.set(BY_OPERATOR, ann, 'email', 'ann@example.org');
      const failed = store.transaction(async (tx) => {
        await channels.setIn(tx, BY_OPERATOR, { id: ann }, 'mobile', '+491705550100', T0 + 5);
        expect(await channels.removeIn(tx, BY_OPERATOR, { id: ann }, 'email', T0 + 5)).toBe(true);
        throw new Error('the rest of the change failed');
      });
      await expect(failed).rejects.toThrow('the rest of the change failed');
      expect((await store.channels.listOfUser(ann)).map((channel) => channel.key)).toEqual(['email']);
      expect((await store.users.findById(ann))?.updatedAt).toBe(T0);
      expect(await store.audit.list({ userId: ann })).toHaveLength(1);
      // A key without a channel: nothing removed, nothing audited.
      expect(
        await store.transaction((tx) => channels.removeIn(tx, BY_OPERATOR, { id: ann }, 'mobile', T0)),
      ).toBe(false);
      expect(await store.audit.list({ userId: ann })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "an address its person proves again keeps its reference and registration time; an agent's proof replaces it as an operator's does",
    async ({ testStore: { store }, expect }) => {
      const channels = new PersonChannels(store, () => T0);
      const ann = await addUser(store, 'ann');
      const proven = (at: number, byConsole: boolean, address = 'ann@home.example') =>
        store.transaction((tx) =>
          channels.writeProven(tx, { userId: ann, key: 'personalEmail', address, byConsole }, at),
        );
      const first = await proven(T0, false);
      expect(first).toMatchObject({ origin: 'owner', registeredAt: T0, provenAt: T0 });
      const again = await proven(T0 + 1000, false);
      expect(again).toMatchObject({ id: first.id, registeredAt: T0, provenAt: T0 + 1000 });
      const moved = await proven(T0 + 2000, false, 'ann@elsewhere.example');
      expect(moved.id).not.toBe(first.id);
      expect(moved.registeredAt).toBe(T0 + 2000);
      const byAgent = await proven(T0 + 3000, true, 'ann@agent.example');
      expect(byAgent).toMatchObject({ origin: 'source', address: 'ann@agent.example' });
      expect(await store.channels.listOfUser(ann)).toHaveLength(1);
    },
  );
});
