import type { Store } from './store.js';
import { StoreError } from './store-error.js';

const META_KEY = 'secret.fingerprint';

/**
 * The store remembers the fingerprint of the secret it was first used with. A start (or CLI run)
 * with a different secret stops with a clear message instead of silently failing every session,
 * service key and code the other instances made. `record: false` (the CLI) never writes it.
 */
export async function checkSecretFingerprint(
  store: Store,
  fingerprint: string,
  record: boolean,
): Promise<void> {
  const kept = record ? await store.meta.setIfAbsent(META_KEY, fingerprint) : await store.meta.get(META_KEY);
  if (kept === undefined || kept === fingerprint) return;
  throw new StoreError(
    `DEA_SECRET is not the secret this store was set up with (fingerprint ${fingerprint}, the store's ${kept}): every instance and the CLI on one store must use the same DEA_SECRET (or the same DEA_DATA_DIR/secret.key). Set the store's secret; the fingerprints never reveal it`,
  );
}
