import type { Db } from './db.js';

/** A one-time link to set a user's password (migration 0025). */
export interface PasswordLink {
  tokenHash: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface PasswordLinkRepository {
  /** Keeps a new link; the user's earlier links that were not used stop working. */
  add(link: Omit<PasswordLink, 'usedAt'>): Promise<void>;
  /** The link of one of these hashes (one per accepted key), used or not. */
  find(tokenHashes: readonly string[]): Promise<PasswordLink | undefined>;
  /**
   * Uses the link once: of two uses at once, one gets true. False for a link used, expired or
   * unknown.
   */
  use(tokenHashes: readonly string[], at: number): Promise<boolean>;
}

export function passwordLinkRepository(db: Db): PasswordLinkRepository {
  return {
    async add(link) {
      await db
        .deleteFrom('password_links')
        .where('user_id', '=', link.userId)
        .where('used_at', 'is', null)
        .execute();
      await db
        .insertInto('password_links')
        .values({
          token_hash: link.tokenHash,
          user_id: link.userId,
          created_at: link.createdAt,
          expires_at: link.expiresAt,
          used_at: null,
        })
        .execute();
    },
    async find(tokenHashes) {
      if (tokenHashes.length === 0) return undefined;
      const row = await db
        .selectFrom('password_links')
        .selectAll()
        .where('token_hash', 'in', tokenHashes)
        .executeTakeFirst();
      return (
        row && {
          tokenHash: row.token_hash,
          userId: row.user_id,
          createdAt: Number(row.created_at),
          expiresAt: Number(row.expires_at),
          usedAt: row.used_at === null ? null : Number(row.used_at),
        }
      );
    },
    async use(tokenHashes, at) {
      if (tokenHashes.length === 0) return false;
      // One statement: of two uses at once, the second finds used_at set and changes nothing.
      const result = await db
        .updateTable('password_links')
        .set({ used_at: at })
        .where('token_hash', 'in', tokenHashes)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
