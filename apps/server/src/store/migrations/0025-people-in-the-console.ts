import type { Kysely } from 'kysely';

/**
 * People in the console: one-time links with which a user sets a new password
 * (an administrator makes one in the console or with dea user password-link; only a keyed hash of
 * the link's token is kept, used once, not after it expires), and a name for each console
 * passkey, so that an account with several can tell them apart.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('password_links_user').on('password_links').column('user_id').execute();
  await db.schema.alterTable('console_passkeys').addColumn('name', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('console_passkeys').dropColumn('name').execute();
  await db.schema.dropTable('password_links').execute();
}
