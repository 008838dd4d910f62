import type { CodeRepository } from '../store.js';
import { insertAudit } from './audit.js';
import type { Db, Dialect } from './db.js';

export function codeRepository(db: Db, dialect: Dialect): CodeRepository {
  return {
    async issue(code, maxUnused, audit) {
      return db.transaction().execute(async (trx) => {
        // Lock the user's row: concurrent issues for one user, on any instance, queue here.
        // SQLite needs no lock: its single connection runs one transaction at a time.
        let lock = trx.selectFrom('users').select('id').where('id', '=', code.userId);
        if (dialect === 'postgres') lock = lock.forUpdate();
        if ((await lock.executeTakeFirst()) === undefined) {
          return { issued: false, reason: 'no-user' } as const;
        }
        const held = await trx
          .selectFrom('codes')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('user_id', '=', code.userId)
          .where('expires_at', '>', code.createdAt)
          .where('uses_left', '>', 0)
          .where('invalidated_at', 'is', null)
          .executeTakeFirstOrThrow();
        if (Number(held.n) >= maxUnused) return { issued: false, reason: 'store-full' } as const;
        await trx
          .insertInto('codes')
          .values({
            id: code.id,
            user_id: code.userId,
            code_hash: code.codeHash,
            created_at: code.createdAt,
            expires_at: code.expiresAt,
            uses_left: code.uses,
            last_used_at: null,
            invalidated_at: null,
            channel_type: code.channelType,
          })
          .execute();
        await insertAudit(trx, audit, code.createdAt);
        return { issued: true } as const;
      });
    },
    async listActive(userId, now) {
      return db
        .selectFrom('codes')
        .select([
          'id',
          'code_hash as codeHash',
          'channel_type as channelType',
          'created_at as createdAt',
          'expires_at as expiresAt',
          'uses_left as usesLeft',
        ])
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .where('uses_left', '>', 0)
        .where('invalidated_at', 'is', null)
        .orderBy('created_at')
        .execute()
        .then((rows) =>
          rows.map((row) => ({
            ...row,
            createdAt: Number(row.createdAt),
            expiresAt: Number(row.expiresAt),
            usesLeft: Number(row.usesLeft),
          })),
        );
    },
    async countActive(userId, now) {
      const row = await db
        .selectFrom('codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .where('uses_left', '>', 0)
        .where('invalidated_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async consume(codeId, now) {
      // One statement decides: of two concurrent calls only one sees uses_left > 0.
      const result = await db
        .updateTable('codes')
        .set((eb) => ({ uses_left: eb('uses_left', '-', 1), last_used_at: now }))
        .where('id', '=', codeId)
        .where('uses_left', '>', 0)
        .where('expires_at', '>', now)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async giveBackUse(codeId) {
      const result = await db
        .updateTable('codes')
        .set((eb) => ({ uses_left: eb('uses_left', '+', 1) }))
        .where('id', '=', codeId)
        .where('last_used_at', 'is not', null)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async invalidate(codeId, now) {
      const result = await db
        .updateTable('codes')
        .set({ invalidated_at: now })
        .where('id', '=', codeId)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async purge(now) {
      const result = await db
        .deleteFrom('codes')
        .where((eb) =>
          eb.or([
            eb('expires_at', '<=', now),
            eb('uses_left', '<=', 0),
            eb('invalidated_at', 'is not', null),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
