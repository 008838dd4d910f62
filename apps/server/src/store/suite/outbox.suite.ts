import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeCase, T0 } from './store-fixture.js';

/** The outbox of messages. */
export function outboxSuite(): void {
  describe.concurrent('outbox', () => {
    const message = (idempotencyKey: string, createdAt: number) => ({
      id: newId(),
      createdAt,
      channelType: 'smtp',
      userId: null as string | null,
      idempotencyKey,
      sealed: `sealed-${idempotencyKey}-${createdAt}`,
    });

    storeCase(
      'refuses a second message with the same idempotency key',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const first = { ...message('k1', T0), userId: user.id };
        expect(await store.outbox.add(first)).toBe(true);
        expect(await store.outbox.add(message('k1', T0 + 1))).toBe(false);
        expect(await store.outbox.list(10)).toEqual([first]);
        expect(await store.outbox.add(message('k2', T0 + 2))).toBe(true);
        expect(await store.outbox.list(10)).toHaveLength(2);
      },
    );

    storeCase('lists newest first up to the limit', async ({ store, expect }) => {
      const a = message('a', T0 + 1);
      const b = message('b', T0 + 3);
      const c = message('c', T0 + 2);
      for (const m of [a, b, c]) expect(await store.outbox.add(m)).toBe(true);
      const listed = await store.outbox.list(2);
      expect(listed).toEqual([b, c]);
      expect(typeof listed[0]?.createdAt).toBe('number');
      expect(await store.outbox.list(10)).toEqual([b, c, a]);
      // Sealed again (a rotation) only while it still holds what was read.
      expect(await store.outbox.reseal(a.id, 'not what it holds', 'x')).toBe(false);
      expect(await store.outbox.reseal(a.id, a.sealed, 'resealed')).toBe(true);
      expect((await store.outbox.list(10)).find((message) => message.id === a.id)?.sealed).toBe('resealed');
    });
  });
}
