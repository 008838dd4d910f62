import type { Username } from '@dea/contract';
import type { HotPath } from './hot-path/hot-path.js';
import { type ServiceKey, toServiceKey } from './service-key-rows.js';
import type { Db } from './db.js';
import type { User } from './users.js';

export type { ServiceKey } from './service-key-rows.js';

/** The user a verification names: by id, or by canonical user name. */
export type NamedUser = { id: string } | { username: Username };

/** A service key and the user a verification names, as one read found them (undefined: none). */
export interface ServiceKeyWithUser {
  serviceKey: ServiceKey | undefined;
  user: User | undefined;
}

export interface ServiceKeyRepository {
  create(key: ServiceKey): Promise<void>;
  /** Replaces the key's hash by one of the current secret, unless another call did first. */
  rehash(id: string, from: string, to: string, at: number): Promise<void>;
  findById(id: string): Promise<ServiceKey | undefined>;
  /**
   * The key and the user a verification names, read together: on PostgreSQL one round trip (the
   * hot path's), where the two reads took one each.
   */
  findWithUser(id: string, named: NamedUser): Promise<ServiceKeyWithUser>;
  list(): Promise<ServiceKey[]>;
  revoke(id: string, at: number): Promise<boolean>;
}

export function serviceKeyRepository(db: Db, hot: HotPath): ServiceKeyRepository {
  // Read on every verification by an integrator: the hot path's reads.
  return {
    findById: (id) => hot.serviceKey(id),
    findWithUser: (id, named) => hot.serviceKeyWithUser(id, named),
    async create(key) {
      await db
        .insertInto('service_keys')
        .values({
          id: key.id,
          name: key.name,
          key_hash: key.keyHash,
          scopes: key.scopes.join(' '),
          created_at: key.createdAt,
          revoked_at: key.revokedAt,
          hashed_at: key.hashedAt,
        })
        .execute();
    },
    async rehash(id, from, to, at) {
      await db
        .updateTable('service_keys')
        .set({ key_hash: to, hashed_at: at })
        .where('id', '=', id)
        .where('key_hash', '=', from)
        .execute();
    },
    async list() {
      const rows = await db.selectFrom('service_keys').selectAll().orderBy('name').execute();
      return rows.map(toServiceKey);
    },
    async revoke(id, at) {
      const result = await db
        .updateTable('service_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
