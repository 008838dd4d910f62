import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { seedDemoData } from '../../seed/demo-data.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { demoModeOf } from './demo-mode.js';

const realUser = (username: string) => ({
  id: `id-${username}`,
  username: usernameOrThrow(username),
  passwordHash: 'x',
  fullName: 'A Real Person',
  locale: 'en',
  createdAt: 0,
});

describe.each(STORE_KINDS)('demo mode on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest('is off without a word when not asked for', async ({ testStore: { store }, expect }) => {
    expect(await demoModeOf({ demo: false }, store)).toEqual({ on: false, refusal: undefined });
  });

  storeTest(
    'is on only on the embedded store while it holds demo users alone, and says why not otherwise',
    async ({ testStore: { store }, expect }) => {
      const asked = () => demoModeOf({ demo: true }, store);
      if (kind === 'postgres') {
        expect(await asked()).toEqual({
          on: false,
          refusal: expect.stringMatching(/^demo mode is off: it never runs on PostgreSQL/),
        });
        return;
      }
      expect(await asked()).toEqual({ on: true });
      expect(await seedDemoData(store, 10, 0)).toBe(true);
      expect(await asked()).toEqual({ on: true });
      await store.users.create(realUser('alice'));
      const off = await asked();
      expect(off).toEqual({
        on: false,
        refusal: expect.stringMatching(/^demo mode is off: this store holds 1 user besides the demo users/),
      });
      const refusal = off.on ? '' : (off.refusal ?? '');
      expect(refusal).toContain('/dea/outbox');
      expect(refusal).toContain('--demo');
      expect(refusal).toContain('DEA_DATA_DIR');
      await store.users.create(realUser('bob'));
      expect(await asked()).toMatchObject({ refusal: expect.stringContaining('holds 2 users besides') });
    },
  );

  storeTest(
    'counts a user called "demo" on a store never seeded as a real user',
    async ({ testStore: { store }, expect }) => {
      await store.users.create(realUser('demo'));
      expect(await demoModeOf({ demo: true }, store)).toMatchObject({ on: false });
    },
  );
});
