import { newId, randomToken } from '../../crypto/ids.js';
import { constantTimeEqual, keyedHash } from '../../crypto/keyed-hash.js';
import { SERVICE_KEY_SCOPES } from '@dea/contract';
import type { SecretKeys } from '../../crypto/secret-keys.js';
import type { ServiceKey, Store, User } from '../../store/store.js';
import { RuleError } from '../rule-error.js';
import { serviceKeyWithUserNamed } from '../identity/user-names.js';

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
    hashedAt: now,
  };
  await store.serviceKeys.create(serviceKey);
  return { key: `dea_${id}.${secret}`, serviceKey };
}

/**
 * The service key a caller presents, when it is valid and has the scope. During a rotation a key
 * hashed with the previous secret is accepted, and its hash is made again with the current one.
 */
export async function authenticateServiceKey(
  store: Store,
  keys: SecretKeys,
  presented: string | undefined,
  scope: string,
  now = Date.now(),
  /** How the key's row is read (a door may read what it needs besides in the same round trip). */
  read: (id: string) => Promise<ServiceKey | undefined> = (id) => store.serviceKeys.findById(id),
): Promise<ServiceKey | undefined> {
  const match = presented === undefined ? null : KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  const [, id = '', secret = ''] = match;
  const serviceKey = await read(id);
  const expected = serviceKey?.keyHash ?? keyedHash(keys.serviceKey, 'absent', secret);
  const current = keyedHash(keys.serviceKey, id, secret);
  const matchesCurrent = constantTimeEqual(current, expected);
  const previousKey = keys.previous?.serviceKey;
  const matchesPrevious =
    previousKey !== undefined && constantTimeEqual(keyedHash(previousKey, id, secret), expected);
  if (!(matchesCurrent || matchesPrevious) || serviceKey === undefined || serviceKey.revokedAt !== null)
    return undefined;
  if (!matchesCurrent) await store.serviceKeys.rehash(id, serviceKey.keyHash, current, now);
  return serviceKey.scopes.includes(scope) ? serviceKey : undefined;
}

/**
 * A verification's service key and the user it names, read together (one round trip on
 * PostgreSQL, user-names.ts serviceKeyWithUserNamed), the key checked by authenticateServiceKey's
 * rule: undefined unless the key is valid with the scope, and the user only with a valid key.
 */
export async function authenticateServiceKeyWithUser(
  store: Store,
  keys: SecretKeys,
  presented: string | undefined,
  scope: string,
  now: number,
  named: { userId?: string | undefined; username?: string | undefined },
): Promise<{ serviceKey: ServiceKey; user: User | undefined } | undefined> {
  let user: User | undefined;
  const serviceKey = await authenticateServiceKey(store, keys, presented, scope, now, async (keyId) => {
    const read = await serviceKeyWithUserNamed(store, keyId, named);
    user = read.user;
    return read.serviceKey;
  });
  return serviceKey === undefined ? undefined : { serviceKey, user };
}

const KEY_NAME = /^[A-Za-z0-9][\w .@-]{0,99}$/;

/**
 * A new key for an integrator, the one rule of the CLI and the console: a name no other key has,
 * known scopes, audited with who made it. The key itself is answered once and never stored.
 */
export async function issueServiceKey(
  store: Store,
  hashKey: Buffer,
  request: { name: string; scopes: readonly string[] },
  actor: string,
  now: number,
): Promise<{ key: string; serviceKey: ServiceKey }> {
  const { name } = request;
  if (!KEY_NAME.test(name))
    throw new RuleError(
      `the name "${name}" must be 1 to 100 letters, digits, spaces or . _ @ - (starting with a letter or digit)`,
      'invalid',
    );
  const scopes = [...new Set(request.scopes)];
  const unknown = scopes.find((scope) => !(SERVICE_KEY_SCOPES as readonly string[]).includes(scope));
  if (unknown !== undefined || scopes.length === 0)
    throw new RuleError(
      `unknown scope "${unknown ?? ''}" (one of ${SERVICE_KEY_SCOPES.join(', ')})`,
      'invalid',
    );
  const taken = () => new RuleError(`a service key named "${name}" already exists`, 'conflict');
  if ((await store.serviceKeys.list()).some((key) => key.name === name)) throw taken();
  const made = await createServiceKey(store, hashKey, name, scopes, now).catch(async (error: unknown) => {
    // Another writer made a key of this name in the meantime: the store's unique name held.
    if ((await store.serviceKeys.list()).some((key) => key.name === name)) throw taken();
    throw error;
  });
  await store.audit.append(
    { event: 'service_key.created', actor, details: { name, id: made.serviceKey.id, scopes } },
    now,
  );
  return made;
}

/** Revokes a key at once, audited; refuses one that does not exist or is revoked already. */
export async function revokeServiceKey(
  store: Store,
  key: ServiceKey,
  actor: string,
  now: number,
): Promise<void> {
  if (!(await store.serviceKeys.revoke(key.id, now)))
    throw new RuleError(`service key ${key.name} was already revoked`, 'conflict');
  await store.audit.append(
    { event: 'service_key.revoked', actor, details: { name: key.name, id: key.id } },
    now,
  );
}
