import type { ChannelKey } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Channel, Store } from '../store.js';
import { storeCase, T0 } from './store-fixture.js';

/** A person's channels and their references. */
export function channelsSuite(): void {
  describe.concurrent('channels', () => {
    const setChannel = (
      store: Store,
      userId: string,
      key: ChannelKey,
      address: string,
      createdAt = T0,
    ): Promise<Channel> => store.channels.set({ id: newId(), userId, key, address, createdAt });

    storeCase(
      'sets a channel; a new address gets a new reference, the same address keeps it',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const id = newId();
        const created = await store.channels.set({
          id,
          userId: user.id,
          key: 'mobile',
          address: '+15550001',
          createdAt: T0,
        });
        expect(created).toEqual({
          id,
          userId: user.id,
          key: 'mobile',
          address: '+15550001',
          origin: 'source',
          provenAt: null,
          registeredAt: null,
        });

        const same = await store.channels.set({
          id: newId(),
          userId: user.id,
          key: 'mobile',
          address: '+15550001',
          createdAt: T0 + 1,
        });
        expect(same).toEqual(created);

        const newId2 = newId();
        const updated = await store.channels.set({
          id: newId2,
          userId: user.id,
          key: 'mobile',
          address: '+15550002',
          createdAt: T0 + 1,
        });
        expect(updated).toMatchObject({ id: newId2, userId: user.id, key: 'mobile', address: '+15550002' });
        expect(await store.channels.listOfUser(user.id)).toEqual([updated]);
        expect(await store.channels.findOfUser(user.id, id)).toBeUndefined();
        expect(await store.channels.findOfUser(user.id, newId2)).toEqual(updated);
      },
    );

    storeCase(
      "a proven address is its person's: proven again it keeps its reference and registration, a new one gets both anew, a source takes it back",
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const first = await store.channels.setProven({
          id: newId(),
          userId: user.id,
          key: 'personalEmail',
          address: 'a@example.org',
          at: T0,
        });
        expect(first).toMatchObject({ origin: 'owner', provenAt: T0, registeredAt: T0 });
        const again = await store.channels.setProven({
          id: newId(),
          userId: user.id,
          key: 'personalEmail',
          address: 'a@example.org',
          at: T0 + 5,
        });
        expect(again).toEqual({ ...first, provenAt: T0 + 5 });
        const moved = await store.channels.setProven({
          id: newId(),
          userId: user.id,
          key: 'personalEmail',
          address: 'b@example.org',
          at: T0 + 9,
        });
        expect(moved.id).not.toBe(first.id);
        expect(moved).toMatchObject({ provenAt: T0 + 9, registeredAt: T0 + 9 });
        const taken = await store.channels.set({
          id: newId(),
          userId: user.id,
          key: 'personalEmail',
          address: 'b@example.org',
          createdAt: T0 + 10,
        });
        expect(taken).toMatchObject({ id: moved.id, origin: 'source' });
      },
    );

    storeCase(
      "lists the user's channels only, in the order they were made",
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const other = await addUser();
        const email = await setChannel(store, user.id, 'email', 'a@example.org', T0 + 2);
        const mobile = await setChannel(store, user.id, 'mobile', '+15550001', T0 + 1);
        const twitter = await setChannel(store, user.id, 'twitter', '@alice', T0 + 3);
        await setChannel(store, other.id, 'email', 'b@example.org');
        expect(await store.channels.listOfUser(user.id)).toEqual([mobile, email, twitter]);
        expect(await store.channels.listOfUser(other.id)).toHaveLength(1);
        expect(await store.channels.listOfUser(newId())).toEqual([]);
      },
    );

    storeCase("refuses another user's reference", async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      const mine = await setChannel(store, user.id, 'email', 'a@example.org');
      const theirs = await setChannel(store, other.id, 'email', 'b@example.org');
      expect(await store.channels.findOfUser(user.id, mine.id)).toEqual(mine);
      expect(await store.channels.findOfUser(user.id, theirs.id)).toBeUndefined();
      expect(await store.channels.findOfUser(other.id, mine.id)).toBeUndefined();
      expect(await store.channels.findOfUser(user.id, newId())).toBeUndefined();
    });

    storeCase('removes a channel by key', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      const mobile = await setChannel(store, user.id, 'mobile', '+15550001');
      const email = await setChannel(store, user.id, 'email', 'a@example.org');
      const othersMobile = await setChannel(store, other.id, 'mobile', '+15550009');
      expect(await store.channels.remove(user.id, 'mobile')).toBe(true);
      expect(await store.channels.remove(user.id, 'mobile')).toBe(false);
      expect(await store.channels.remove(user.id, 'telephone')).toBe(false);
      expect(await store.channels.listOfUser(user.id)).toEqual([email]);
      expect(await store.channels.findOfUser(user.id, mobile.id)).toBeUndefined();
      expect(await store.channels.listOfUser(other.id)).toEqual([othersMobile]);

      // A new channel of a removed key gets the new reference.
      const again = await store.channels.set({
        id: 'fresh-reference',
        userId: user.id,
        key: 'mobile',
        address: '+15550003',
        createdAt: T0 + 5,
      });
      expect(again.id).toBe('fresh-reference');
    });

    storeCase('removes the channels with the user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      const mobile = await setChannel(store, user.id, 'mobile', '+15550001');
      await setChannel(store, user.id, 'email', 'a@example.org');
      const othersEmail = await setChannel(store, other.id, 'email', 'b@example.org');
      await store.users.remove(user.id);
      expect(await store.channels.listOfUser(user.id)).toEqual([]);
      expect(await store.channels.findOfUser(user.id, mobile.id)).toBeUndefined();
      expect(await store.channels.listOfUser(other.id)).toEqual([othersEmail]);
    });
  });
}
