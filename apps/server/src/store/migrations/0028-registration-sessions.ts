import type { Kysely } from 'kysely';

/**
 * The strong sign-in that opens the registration of channels: a registration session,
 * opened by a code sent to an already proven channel (its challenge: the code as a keyed hash,
 * tries, expiry) or by a one-time registration link (`registration_links`, a keyed hash of its
 * token, used once). Its cookie's token is kept only as a keyed hash too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('registration_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text')
    .addColumn('code_hash', 'text')
    .addColumn('tries_left', 'integer', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('opened_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('registration_sessions_user')
    .on('registration_sessions')
    .column('user_id')
    .execute();
  await db.schema
    .createTable('registration_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('registration_links_user').on('registration_links').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('registration_links').execute();
  await db.schema.dropTable('registration_sessions').execute();
}
