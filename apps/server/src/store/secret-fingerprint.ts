import type { SecretKeys } from '../crypto/secret-keys.js';
import type { Store } from './store.js';
import { StoreError } from './store-error.js';

/** Where the store keeps its secret's fingerprint (the audit trail reads it too, ADR 0032). */
export const SECRET_FINGERPRINT_KEY = 'secret.fingerprint';
const META_KEY = SECRET_FINGERPRINT_KEY;
/** Fingerprints of secrets a rotation replaced, space-separated: never the store's secret again. */
const RETIRED_KEY = 'secret.retired';
/** When the store's secret was last replaced (milliseconds), and the one it replaced. */
export const ROTATED_AT_KEY = 'secret.rotated_at';
export const REPLACED_KEY = 'secret.replaced';

/**
 * The store remembers the fingerprint of its secret. A start (or CLI run) with a different secret
 * stops with a clear message instead of silently failing every session, service key and code the
 * other instances made. A rotation is the one way to change it: a server started with a new
 * DEA_SECRET and the store's secret in DEA_SECRET_PREVIOUS records the new one (`record`: the
 * server; the CLI never writes), and the replaced secret can never become the store's again.
 * Answers when the secret changed, if this start changed it.
 */
export async function checkSecretFingerprint(
  store: Store,
  keys: Pick<SecretKeys, 'fingerprint' | 'previous'>,
  record: boolean,
  now = Date.now(),
): Promise<{ rotated: boolean }> {
  const { fingerprint } = keys;
  const previous = keys.previous?.fingerprint;
  const retired = ((await store.meta.get(RETIRED_KEY)) ?? '').split(' ').filter(Boolean);
  if (retired.includes(fingerprint)) {
    throw new StoreError(
      `DEA_SECRET (fingerprint ${fingerprint}) was replaced by a newer secret in this store: start with the new secret as DEA_SECRET${previous === undefined ? '' : ` (DEA_SECRET_PREVIOUS ${previous} is kept accepted)`}`,
    );
  }
  const kept = record ? await store.meta.setIfAbsent(META_KEY, fingerprint) : await store.meta.get(META_KEY);
  if (kept === undefined || kept === fingerprint) return { rotated: false };
  if (kept === previous) {
    // The first instance of a rotation: the store's secret is now DEA_SECRET.
    if (record) {
      await store.meta.set(RETIRED_KEY, [...retired, previous].join(' '));
      await store.meta.set(REPLACED_KEY, previous);
      await store.meta.set(ROTATED_AT_KEY, String(now));
      await store.meta.set(META_KEY, fingerprint);
      return { rotated: true };
    }
    return { rotated: false };
  }
  throw new StoreError(
    `DEA_SECRET is not the secret this store was set up with (fingerprint ${fingerprint}, the store's ${kept}${previous === undefined ? '' : `, DEA_SECRET_PREVIOUS ${previous}`}): every instance and the CLI on one store must use the same DEA_SECRET (or the same DEA_DATA_DIR/secret.key); to replace it, start with the new one as DEA_SECRET and the store's as DEA_SECRET_PREVIOUS. The fingerprints never reveal a secret`,
  );
}
