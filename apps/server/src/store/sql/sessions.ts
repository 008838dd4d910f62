import type { SessionRepository } from '../store.js';
import type { Db } from './db.js';

export function sessionRepository(db: Db): SessionRepository {
  return {
    async create(session) {
      await db
        .insertInto('sessions')
        .values({
          id_hash: session.idHash,
          user_id: session.userId,
          created_at: session.createdAt,
          last_seen_at: session.lastSeenAt,
          ended_at: null,
        })
        .execute();
    },
    async find(idHash) {
      const row = await db
        .selectFrom('sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return (
        row && {
          idHash: row.id_hash,
          userId: row.user_id,
          createdAt: Number(row.created_at),
          lastSeenAt: Number(row.last_seen_at),
          endedAt: row.ended_at === null ? null : Number(row.ended_at),
        }
      );
    },
    async touch(idHash, at) {
      await db
        .updateTable('sessions')
        .set({ last_seen_at: at })
        .where('id_hash', '=', idHash)
        .where('last_seen_at', '<', at)
        .execute();
    },
    async end(idHash, at) {
      await db
        .updateTable('sessions')
        .set({ ended_at: at })
        .where('id_hash', '=', idHash)
        .where('ended_at', 'is', null)
        .execute();
    },
    async listOpenOfUser(userId) {
      const rows = await db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('ended_at', 'is', null)
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map((row) => ({
        idHash: row.id_hash,
        userId: row.user_id,
        createdAt: Number(row.created_at),
        lastSeenAt: Number(row.last_seen_at),
        endedAt: null,
      }));
    },
    async endAllOfUser(userId, at) {
      const result = await db
        .updateTable('sessions')
        .set({ ended_at: at })
        .where('user_id', '=', userId)
        .where('ended_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async purge(before) {
      const result = await db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('ended_at', '<', before), eb('last_seen_at', '<', before)]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
