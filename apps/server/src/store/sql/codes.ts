import type { CodeRepository } from '../store.js';
import type { Selectable } from 'kysely';
import type { CodesTable } from '../database.js';
import { auditInserter } from './audit.js';
import { compiledOnce } from './compiled-once.js';
import type { Db, Dialect } from './db.js';

export function codeRepository(db: Db, dialect: Dialect): CodeRepository {
  const insertAudit = auditInserter(db);
  // Issuing a code is a hot path: its statements are compiled once.
  const lockUser = compiledOnce(db, (values: { userId: string }) => {
    // Lock the user's row: concurrent issues for one user, on any instance, queue here.
    // SQLite needs no lock: its single connection runs one transaction at a time.
    const query = db.selectFrom('users').select('id').where('id', '=', values.userId);
    return dialect === 'postgres' ? query.forUpdate() : query;
  });
  // The limit is checked by the insert itself: one statement, after the lock (on PostgreSQL a
  // statement of its own, so it sees every code committed before the lock was granted).
  const insertUnderLimit = compiledOnce(db, (values: Selectable<CodesTable> & { max_unused: number }) =>
    db
      .insertInto('codes')
      .columns([
        'id',
        'user_id',
        'code_hash',
        'created_at',
        'expires_at',
        'uses_left',
        'last_used_at',
        'invalidated_at',
        'channel_type',
      ])
      .expression(
        db
          // Typed: PostgreSQL does not infer a parameter's type from the column it is inserted into.
          .selectNoFrom((eb) => [
            eb.cast<string>(eb.val(values.id), 'text').as('id'),
            eb.cast<string>(eb.val(values.user_id), 'text').as('user_id'),
            eb.cast<string>(eb.val(values.code_hash), 'text').as('code_hash'),
            eb.cast<number>(eb.val(values.created_at), 'bigint').as('created_at'),
            eb.cast<number>(eb.val(values.expires_at), 'bigint').as('expires_at'),
            eb.cast<number>(eb.val(values.uses_left), 'integer').as('uses_left'),
            eb.cast<number | null>(eb.lit(null), 'bigint').as('last_used_at'),
            eb.cast<number | null>(eb.lit(null), 'bigint').as('invalidated_at'),
            eb.cast<string | null>(eb.val(values.channel_type), 'text').as('channel_type'),
          ])
          .where(
            (eb) =>
              eb
                .selectFrom('codes')
                .select(eb.fn.countAll<number>().as('n'))
                .where('user_id', '=', values.user_id)
                .where('expires_at', '>', values.created_at)
                .where('uses_left', '>', 0)
                .where('invalidated_at', 'is', null),
            '<',
            values.max_unused,
          ),
      ),
  );
  return {
    async issue(code, maxUnused, audit) {
      return db.transaction().execute(async (trx) => {
        if ((await lockUser.run(trx, { userId: code.userId })).rows.length === 0) {
          return { issued: false, reason: 'no-user' } as const;
        }
        const inserted = await insertUnderLimit.run(trx, {
          id: code.id,
          user_id: code.userId,
          code_hash: code.codeHash,
          created_at: code.createdAt,
          expires_at: code.expiresAt,
          uses_left: code.uses,
          last_used_at: null,
          invalidated_at: null,
          channel_type: code.channelType,
          max_unused: maxUnused,
        });
        if (Number(inserted.numAffectedRows ?? 0n) === 0)
          return { issued: false, reason: 'store-full' } as const;
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
  };
}
