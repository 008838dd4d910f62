import { randomBytes } from 'node:crypto';
import { describe, vi } from 'vitest';
import * as keyedHashes from '../crypto/keyed-hash.js';
import { deriveKeys } from '../crypto/secret-keys.js';
import { storeTest } from '../testing/fixtures.js';
import { STORE_KINDS } from '../testing/stores.js';
import { authenticateServiceKey, createServiceKey, revokeServiceKey } from './service-keys.js';

// The real keyed hash, counted.
vi.mock('../crypto/keyed-hash.js', async (importOriginal) => {
  const real = await importOriginal<typeof keyedHashes>();
  return { ...real, keyedHash: vi.fn(real.keyedHash) };
});

const NOW = Date.UTC(2026, 10, 27, 12);

describe.each(STORE_KINDS)('a service key presented again on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'is checked without a keyed hash while its row is unchanged, and refused at once when revoked',
    async ({ testStore, expect }) => {
      const { store } = testStore;
      const keys = deriveKeys(randomBytes(32));
      const { key, serviceKey } = await createServiceKey(store, keys.serviceKey, 'gateway', ['verify'], NOW);
      const hashesOf = async (run: () => Promise<unknown>): Promise<number> => {
        vi.mocked(keyedHashes.keyedHash).mockClear();
        await run();
        return vi.mocked(keyedHashes.keyedHash).mock.calls.length;
      };
      const authenticate = (presented: string, scope = 'verify') =>
        authenticateServiceKey(store, keys, presented, scope, NOW);

      expect(
        await hashesOf(async () => expect(await authenticate(key)).toMatchObject({ id: serviceKey.id })),
      ).toBe(1);
      expect(
        await hashesOf(async () => expect(await authenticate(key)).toMatchObject({ id: serviceKey.id })),
      ).toBe(0);
      // The scope is the row's, checked every time.
      expect(await authenticate(key, 'admin')).toBeUndefined();
      // Another secret for the same id is checked in full, and refused.
      const wrong = `${key.slice(0, key.indexOf('.') + 1)}${'A'.repeat(43)}`;
      expect(await hashesOf(async () => expect(await authenticate(wrong)).toBeUndefined())).toBeGreaterThan(
        0,
      );

      await revokeServiceKey(store, serviceKey, 'test', NOW);
      expect(await authenticate(key)).toBeUndefined();
    },
  );

  storeTest(
    'is checked in full once its row holds another hash (hashed anew elsewhere)',
    async ({ testStore, expect }) => {
      const { store } = testStore;
      const keys = deriveKeys(randomBytes(32));
      const { key, serviceKey } = await createServiceKey(store, keys.serviceKey, 'gateway', ['verify'], NOW);
      expect(await authenticateServiceKey(store, keys, key, 'verify', NOW)).toMatchObject({
        id: serviceKey.id,
      });
      // Another instance, on another secret, made the row's hash anew: this key no longer matches it here.
      await store.serviceKeys.rehash(serviceKey.id, serviceKey.keyHash, 'another-hash', NOW);
      expect(await authenticateServiceKey(store, keys, key, 'verify', NOW)).toBeUndefined();
    },
  );

  storeTest(
    'made with the secret replaced, is hashed anew and then remembered with its new hash',
    async ({ testStore, expect }) => {
      const { store } = testStore;
      const old = randomBytes(32);
      const { key, serviceKey } = await createServiceKey(
        store,
        deriveKeys(old).serviceKey,
        'gateway',
        ['verify'],
        NOW,
      );
      const keys = deriveKeys(randomBytes(32), old);
      expect(await authenticateServiceKey(store, keys, key, 'verify', NOW)).toMatchObject({
        id: serviceKey.id,
      });
      const hashed = (await store.serviceKeys.findById(serviceKey.id))?.keyHash;
      expect(hashed).not.toBe(serviceKey.keyHash);
      expect(await authenticateServiceKey(store, keys, key, 'verify', NOW)).toMatchObject({
        keyHash: hashed,
      });
      vi.mocked(keyedHashes.keyedHash).mockClear();
      expect(await authenticateServiceKey(store, keys, key, 'verify', NOW)).toMatchObject({
        keyHash: hashed,
      });
      expect(vi.mocked(keyedHashes.keyedHash)).not.toHaveBeenCalled();
      // Under another secret, what was remembered under this one counts for nothing.
      expect(
        await authenticateServiceKey(store, deriveKeys(randomBytes(32)), key, 'verify', NOW),
      ).toBeUndefined();
    },
  );
});
