import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { PersonChannels } from './channels.js';
import type { ChangeBy } from './user-ownership.js';
import { OwnershipRefused } from './user-ownership.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const BY_OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };

async function addUser(store: Store, username: string, source: UserSource = 'local'): Promise<string> {
  const id = newId(T0);
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: 'hash-0',
    fullName: `Full ${username}`,
    locale: 'en',
    createdAt: T0,
    source,
    externalId: source === 'local' ? null : `ext-${username}`,
  });
  return id;
}

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
});
