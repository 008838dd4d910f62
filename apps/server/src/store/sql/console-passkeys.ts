import { sql } from 'kysely';
import type { Db } from './db.js';

/** A console passkey as its account's administrators see it. */
export interface ConsolePasskeyView {
  credentialId: string;
  name: string | null;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Console accounts' passkeys one by one, and their last sign-in (migration 0025). */
export interface ConsolePasskeyRepository {
  list(accountId: string): Promise<ConsolePasskeyView[]>;
  /** Answers whether the account has that passkey. */
  rename(accountId: string, credentialId: string, name: string | null): Promise<boolean>;
  /**
   * Removes one passkey of the account, never its last: of two removals at once of its last two,
   * one removes and the other answers 'last' (the account's row is held for the transaction).
   * Call inside a store transaction.
   */
  removeKeepingOne(accountId: string, credentialId: string): Promise<'removed' | 'last' | 'missing'>;
  /** When the account last completed a sign-in (its passkey, or its provider); null: never. */
  lastSignInOf(accountId: string): Promise<number | null>;
}

export function consolePasskeyRepository(db: Db): ConsolePasskeyRepository {
  return {
    async list(accountId) {
      const rows = await db
        .selectFrom('console_passkeys')
        .select(['credential_id', 'name', 'created_at', 'last_used_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .execute();
      return rows.map((row) => ({
        credentialId: row.credential_id,
        name: row.name,
        createdAt: Number(row.created_at),
        lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
      }));
    },
    async rename(accountId, credentialId, name) {
      const result = await db
        .updateTable('console_passkeys')
        .set({ name })
        .where('account_id', '=', accountId)
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async removeKeepingOne(accountId, credentialId) {
      // An update that changes nothing holds the account's row (PostgreSQL) until the transaction
      // ends; the embedded store runs one writing transaction at a time.
      await db.updateTable('console_accounts').set({ id: sql`id` }).where('id', '=', accountId).execute();
      const passkeys = await db
        .selectFrom('console_passkeys')
        .select('credential_id')
        .where('account_id', '=', accountId)
        .execute();
      if (!passkeys.some((passkey) => passkey.credential_id === credentialId)) return 'missing';
      if (passkeys.length <= 1) return 'last';
      await db
        .deleteFrom('console_passkeys')
        .where('account_id', '=', accountId)
        .where('credential_id', '=', credentialId)
        .execute();
      return 'removed';
    },
    async lastSignInOf(accountId) {
      const row = await db
        .selectFrom('console_sessions')
        .select((eb) => eb.fn.max('passkey_at').as('last'))
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row?.last === null || row?.last === undefined ? null : Number(row.last);
    },
  };
}
