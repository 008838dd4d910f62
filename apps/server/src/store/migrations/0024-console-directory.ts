import type { Kysely } from 'kysely';

/**
 * Console accounts of directory people (DEA_CONSOLE_LDAP_ROLES): which directory
 * entry (its entryUUID or objectGUID) an account is, and of each session so signed in when its
 * role was last read from the directory's groups.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_directory_accounts')
    .addColumn('account_id', 'text', (c) =>
      c.primaryKey().references('console_accounts.id').onDelete('cascade'),
    )
    .addColumn('external_id', 'text', (c) => c.notNull().unique())
    .execute();
  await db.schema
    .createTable('console_directory_sessions')
    .addColumn('id_hash', 'text', (c) =>
      c.primaryKey().references('console_sessions.id_hash').onDelete('cascade'),
    )
    .addColumn('roles_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_directory_sessions').execute();
  await db.schema.dropTable('console_directory_accounts').execute();
}
