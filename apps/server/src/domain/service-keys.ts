import { newId, randomToken } from '../crypto/ids.js';
import { constantTimeEqual, keyedHash } from '../crypto/keyed-hash.js';
import type { ServiceKey, Store } from '../store/store.js';

/**
 * Service keys let integrators call the verification API. A key reads `dea_<id>.<secret>`; the
 * store keeps only a keyed hash of the secret, compared in constant time.
 */
const KEY_PATTERN = /^dea_([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

export async function createServiceKey(
  store: Store,
  hashKey: Buffer,
  name: string,
  scopes: string[],
  now: number,
): Promise<{ key: string; serviceKey: ServiceKey }> {
  const id = newId(now);
  const secret = randomToken(32);
  const serviceKey: ServiceKey = {
    id,
    name,
    keyHash: keyedHash(hashKey, id, secret),
    scopes,
    createdAt: now,
    revokedAt: null,
  };
  await store.serviceKeys.create(serviceKey);
  return { key: `dea_${id}.${secret}`, serviceKey };
}

export async function authenticateServiceKey(
  store: Store,
  hashKey: Buffer,
  presented: string | undefined,
  scope: string,
): Promise<ServiceKey | undefined> {
  const match = presented === undefined ? null : KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  const [, id = '', secret = ''] = match;
  const serviceKey = await store.serviceKeys.findById(id);
  const expected = serviceKey?.keyHash ?? keyedHash(hashKey, 'absent', secret);
  const matches = constantTimeEqual(keyedHash(hashKey, id, secret), expected);
  if (!matches || serviceKey === undefined || serviceKey.revokedAt !== null) return undefined;
  return serviceKey.scopes.includes(scope) ? serviceKey : undefined;
}
