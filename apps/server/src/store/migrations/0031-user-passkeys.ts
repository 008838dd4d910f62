import type { Kysely } from 'kysely';

/**
 * A person's own passkeys, the fourth strong sign-in that opens the registration of
 * channels: each credential's public key, counter and transports, a name the person gives it,
 * and when it was made and last used. A ceremony's challenge is kept apart, one per person and
 * ceremony, taken once (a second answer to it finds nothing) and only until it expires.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_passkeys')
    .addColumn('credential_id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('user_passkeys_user').on('user_passkeys').column('user_id').execute();
  await db.schema
    .createTable('user_passkey_challenges')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('ceremony', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_passkey_challenges_pk', ['user_id', 'ceremony'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_passkey_challenges').execute();
  await db.schema.dropTable('user_passkeys').execute();
}
