import type { Kysely } from 'kysely';

/**
 * One-time enrolment links of console accounts: what `dea admin add` and `dea admin
 * reset-passkeys` print, without which an account cannot register its first passkey. Only a keyed
 * hash of the link's token is kept; a link is used once, and not after it expires.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_enrolment_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('console_accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('console_enrolment_links_account')
    .on('console_enrolment_links')
    .column('account_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_enrolment_links').execute();
}
