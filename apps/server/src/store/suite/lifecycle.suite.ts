import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import type { StoreKind } from '../../testing/stores.js';
import { storeCase, T0 } from './store-fixture.js';

/** The store itself: it answers a ping, names its kind, and opens again with its data after a restart. */
export function lifecycleSuite(kind: StoreKind): void {
  storeCase('answers ping and names its kind', async ({ store, expect }) => {
    await expect(store.ping()).resolves.toBeUndefined();
    expect(store.kind).toBe(kind);
  });

  describe.concurrent('migrations', () => {
    storeCase(
      'opens an already-migrated store again and keeps its data',
      async ({ store, expect, addUser, issue, openSecondInstance }) => {
        const user = await addUser({ username: usernameOrThrow('kept') });
        await store.meta.set('marker', 'before');
        await issue(user.id);

        // A second instance while the first is open.
        const second = await openSecondInstance();
        try {
          expect((await second.users.findByUsername(usernameOrThrow('kept')))?.id).toBe(user.id);
          expect(await second.meta.get('marker')).toBe('before');
          await second.meta.set('marker', 'from-second');
        } finally {
          await second.close();
        }
        expect(await store.meta.get('marker')).toBe('from-second');

        // Closed and opened again, as after a restart.
        await store.close();
        const reopened = await openSecondInstance();
        try {
          expect(await reopened.users.count()).toBe(1);
          expect((await reopened.users.findById(user.id))?.username).toBe('kept');
          expect(await reopened.meta.get('marker')).toBe('from-second');
          expect(await reopened.codes.countActive(user.id, T0)).toBe(1);
        } finally {
          await reopened.close();
        }
      },
    );
  });
}
