import type { Db } from './db.js';

/** A remembered device of a person; its token is kept only as a keyed hash. */
export interface RememberedDevice {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  forgottenAt: number | null;
}

export interface RememberedDeviceRepository {
  add(device: Omit<RememberedDevice, 'forgottenAt'>): Promise<void>;
  /** The device of that id, whoever's, expired or forgotten too (the domain says why it is refused). */
  find(id: string): Promise<RememberedDevice | undefined>;
  /** Forgets every device of the user still remembered; answers how many. */
  forgetAll(userId: string, at: number): Promise<number>;
  /** Forgets the user's devices remembered since `since` (inclusive) and still remembered; answers how many. */
  forgetSince(userId: string, since: number, at: number): Promise<number>;
}

export function rememberedDeviceRepository(db: Db): RememberedDeviceRepository {
  return {
    async add(device) {
      await db
        .insertInto('remembered_devices')
        .values({
          id: device.id,
          user_id: device.userId,
          token_hash: device.tokenHash,
          created_at: device.createdAt,
          expires_at: device.expiresAt,
          forgotten_at: null,
        })
        .execute();
    },
    async find(id) {
      const row = await db
        .selectFrom('remembered_devices')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return {
        id: row.id,
        userId: row.user_id,
        tokenHash: row.token_hash,
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
        forgottenAt: row.forgotten_at === null ? null : Number(row.forgotten_at),
      };
    },
    async forgetSince(userId, since, at) {
      const result = await db
        .updateTable('remembered_devices')
        .set({ forgotten_at: at })
        .where('user_id', '=', userId)
        .where('created_at', '>=', since)
        .where('forgotten_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async forgetAll(userId, at) {
      const result = await db
        .updateTable('remembered_devices')
        .set({ forgotten_at: at })
        .where('user_id', '=', userId)
        .where('forgotten_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
