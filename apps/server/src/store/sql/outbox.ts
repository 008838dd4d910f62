import type { Db } from './db.js';

export interface OutboxMessage {
  id: string;
  createdAt: number;
  channelType: string;
  userId: string | null;
  idempotencyKey: string;
  sealed: string;
}

export interface OutboxRepository {
  /** Replaces a message's sealed content (sealed again with the current key), unless it changed meanwhile. */
  reseal(id: string, from: string, to: string): Promise<boolean>;
  /** False when a message with that idempotency key is already there. */
  add(message: OutboxMessage): Promise<boolean>;
  /** Newest first; only the user's messages when a user id is given. */
  list(limit: number, userId?: string): Promise<OutboxMessage[]>;
}

export function outboxRepository(db: Db): OutboxRepository {
  return {
    async reseal(id, from, to) {
      const result = await db
        .updateTable('outbox')
        .set({ sealed: to })
        .where('id', '=', id)
        .where('sealed', '=', from)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async add(message) {
      const result = await db
        .insertInto('outbox')
        .values({
          id: message.id,
          created_at: message.createdAt,
          channel_type: message.channelType,
          user_id: message.userId,
          idempotency_key: message.idempotencyKey,
          sealed: message.sealed,
        })
        .onConflict((oc) => oc.column('idempotency_key').doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
    async list(limit, userId) {
      let query = db.selectFrom('outbox').selectAll();
      if (userId !== undefined) query = query.where('user_id', '=', userId);
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map((row) => ({
        id: row.id,
        createdAt: Number(row.created_at),
        channelType: row.channel_type,
        userId: row.user_id,
        idempotencyKey: row.idempotency_key,
        sealed: row.sealed,
      }));
    },
  };
}
