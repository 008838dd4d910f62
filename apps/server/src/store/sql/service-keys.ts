import { sql } from 'kysely';
import { SERVICE_KEY_COLUMNS, type ServiceKey, toServiceKey } from './service-key-rows.js';
import { readsGatheredByTurn } from './by-turn.js';
import { compiledOnce } from './compiled-once.js';
import type { Db, Dialect } from './db.js';
import {
  type NamedUser,
  type ServiceKeyWithUser,
  serviceKeyWithUserReader,
} from './service-key-with-user.js';
import type { UserRepository } from './users.js';

export type { ServiceKey } from './service-key-rows.js';

export interface ServiceKeyRepository {
  create(key: ServiceKey): Promise<void>;
  /** Replaces the key's hash by one of the current secret, unless another call did first. */
  rehash(id: string, from: string, to: string, at: number): Promise<void>;
  findById(id: string): Promise<ServiceKey | undefined>;
  /**
   * The key and the user a verification names, read together: on PostgreSQL one round trip
   * (service-key-with-user.ts), where the two reads took one each.
   */
  findWithUser(id: string, named: NamedUser): Promise<ServiceKeyWithUser>;
  list(): Promise<ServiceKey[]>;
  revoke(id: string, at: number): Promise<boolean>;
}

export function serviceKeyRepository(
  db: Db,
  dialect: Dialect,
  users: Pick<UserRepository, 'findById' | 'findByUsername'>,
): ServiceKeyRepository {
  // Read on every verification by an integrator: compiled once; on PostgreSQL the reads of one turn
  // of the event loop are one query.
  const byId = compiledOnce(db, (values: { id: string }) =>
    db.selectFrom('service_keys').selectAll().where('id', '=', values.id),
  );
  const byIds = compiledOnce(
    db,
    (values: { ids: string[] }) =>
      db
        .selectFrom('service_keys')
        .select(SERVICE_KEY_COLUMNS)
        .where('id', '=', sql<string>`any(${values.ids})`),
    { prepared: true },
  );
  const gathered = readsGatheredByTurn(async (ids: string[]) => {
    const { rows } = await byIds.run(db, { ids });
    return new Map(rows.map((row) => [row.id, toServiceKey(row)]));
  });
  const findById = async (id: string): Promise<ServiceKey | undefined> => {
    if (dialect === 'postgres') return gathered(id);
    const row = (await byId.run(db, { id })).rows[0];
    return row && toServiceKey(row);
  };
  const withUser = serviceKeyWithUserReader(db, dialect, {
    key: findById,
    userById: (id) => users.findById(id),
    userByName: (username) => users.findByUsername(username),
  });
  return {
    findById,
    findWithUser: withUser,
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
