import { describe } from 'vitest';
import { storeCase, T0 } from './store-fixture.js';

/** The help desk's reads across repositories: a person's open sessions, users by the end of an address. */
export function helpDeskReadsSuite(): void {
  describe.concurrent('help desk reads', () => {
    storeCase(
      'lists open sessions, active codes with their times, and users by the end of an address',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const other = await addUser();
        await store.sessions.create({ idHash: 'h1', userId: user.id, createdAt: T0, lastSeenAt: T0 + 5 });
        await store.sessions.create({ idHash: 'h2', userId: user.id, createdAt: T0 + 1, lastSeenAt: T0 + 1 });
        await store.sessions.end('h2', T0 + 2);
        expect(await store.sessions.listOpenOfUser(user.id)).toEqual([
          { idHash: 'h1', userId: user.id, createdAt: T0, lastSeenAt: T0 + 5, endedAt: null },
        ]);
        await store.channels.set({
          id: 'r1',
          userId: user.id,
          key: 'mobile',
          address: '+491705550123',
          createdAt: T0,
        });
        await store.channels.set({
          id: 'r2',
          userId: other.id,
          key: 'telephone',
          address: '+4930550123',
          createdAt: T0,
        });
        await store.channels.set({
          id: 'r3',
          userId: other.id,
          key: 'email',
          address: 'x0123@example.com',
          createdAt: T0,
        });
        expect((await store.channels.findUserIdsByAddressEnding('0123', 10)).sort()).toEqual(
          [user.id, other.id].sort(),
        );
        expect((await store.channels.findUserIdsByAddressEnding('550123', 10)).sort()).toEqual(
          [user.id, other.id].sort(),
        );
        expect(await store.channels.findUserIdsByAddressEnding('5550123', 10)).toEqual([user.id]);
        expect(await store.channels.findUserIdsByAddressEnding('%', 10)).toEqual([]);
      },
    );
  });
}
