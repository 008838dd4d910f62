import { describe } from 'vitest';
import { storeCase } from './store-fixture.js';

/** Meta values. */
export function metaSuite(): void {
  describe.concurrent('meta', () => {
    storeCase('gets and overwrites values', async ({ store, expect }) => {
      expect(await store.meta.get('schema.note')).toBeUndefined();
      await store.meta.set('schema.note', 'one');
      await store.meta.set('other', 'x');
      expect(await store.meta.get('schema.note')).toBe('one');
      await store.meta.set('schema.note', 'two');
      expect(await store.meta.get('schema.note')).toBe('two');
      expect(await store.meta.get('other')).toBe('x');
    });
  });
}
