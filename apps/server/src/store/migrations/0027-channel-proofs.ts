import type { Kysely } from 'kysely';

/**
 * Channels people register themselves. A channel remembers who registered it
 * (`origin`: source for what the directory, SCIM, the import or the CLI set; owner for one its
 * person proved), when its address was last proven and when it was registered (the cooling-off
 * time counts from there). An address waiting for its proof lives in `channel_proofs` (the code
 * as a keyed hash, its expiry, the tries left), never in `channels`; the link that undoes a
 * registration, in `channel_undo_links` (a keyed hash of its token, used once).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('channels')
    .addColumn('origin', 'text', (c) => c.notNull().defaultTo('source'))
    .execute();
  await db.schema.alterTable('channels').addColumn('proven_at', 'bigint').execute();
  await db.schema.alterTable('channels').addColumn('registered_at', 'bigint').execute();
  await db.schema
    .createTable('channel_proofs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('tries_left', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('channel_proofs_user_key', ['user_id', 'key'])
    .execute();
  await db.schema
    .createTable('channel_undo_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('channel_undo_links_user').on('channel_undo_links').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('channel_undo_links').execute();
  await db.schema.dropTable('channel_proofs').execute();
  await db.schema.alterTable('channels').dropColumn('registered_at').execute();
  await db.schema.alterTable('channels').dropColumn('proven_at').execute();
  await db.schema.alterTable('channels').dropColumn('origin').execute();
}
