import type { Db } from './db.js';

/** Console accounts of directory people and their sessions (migration 0024). */
export interface ConsoleDirectoryRepository {
  /** The console account of a directory entry (its entryUUID or objectGUID). */
  findAccountIdOf(externalId: string): Promise<string | undefined>;
  /** The directory entry of a console account; undefined: not a directory person's. */
  externalIdOf(accountId: string): Promise<string | undefined>;
  linkAccount(externalId: string, accountId: string): Promise<void>;
  addSession(idHash: string, rolesAt: number): Promise<void>;
  /** When the session's role was last read from the directory; undefined: not such a session. */
  rolesAtOf(idHash: string): Promise<number | undefined>;
  /**
   * Keeps the time of a role's reading for the one caller that found `readRolesAt`: false when
   * another reading (another instance) was kept first.
   */
  saveRolesAt(idHash: string, readRolesAt: number, rolesAt: number): Promise<boolean>;
}

export function consoleDirectoryRepository(db: Db): ConsoleDirectoryRepository {
  return {
    async findAccountIdOf(externalId) {
      const row = await db
        .selectFrom('console_directory_accounts')
        .select('account_id')
        .where('external_id', '=', externalId)
        .executeTakeFirst();
      return row?.account_id;
    },
    async externalIdOf(accountId) {
      const row = await db
        .selectFrom('console_directory_accounts')
        .select('external_id')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row?.external_id;
    },
    async linkAccount(externalId, accountId) {
      await db
        .insertInto('console_directory_accounts')
        .values({ external_id: externalId, account_id: accountId })
        .execute();
    },
    async addSession(idHash, rolesAt) {
      await db
        .insertInto('console_directory_sessions')
        .values({ id_hash: idHash, roles_at: rolesAt })
        .execute();
    },
    async rolesAtOf(idHash) {
      const row = await db
        .selectFrom('console_directory_sessions')
        .select('roles_at')
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return row === undefined ? undefined : Number(row.roles_at);
    },
    async saveRolesAt(idHash, readRolesAt, rolesAt) {
      const result = await db
        .updateTable('console_directory_sessions')
        .set({ roles_at: rolesAt })
        .where('id_hash', '=', idHash)
        .where('roles_at', '=', readRolesAt)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
