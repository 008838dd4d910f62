import type { Kysely } from 'kysely';

/**
 * Remembered devices: a browser that opened a registration session holds a cookie that
 * may let a code be shown on screen there for screenCodeRememberedDeviceDays. Each cookie is a row
 * bound to its person, kept only as a keyed hash of its token; forgetting a person's devices marks
 * their rows forgotten (the person, the help desk, dea user forget-devices); the retention purge
 * removes expired and forgotten rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('remembered_devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('forgotten_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('remembered_devices_user')
    .on('remembered_devices')
    .columns(['user_id', 'forgotten_at'])
    .execute();
  // The retention purge finds expired and forgotten devices by these.
  await db.schema
    .createIndex('remembered_devices_expiry')
    .on('remembered_devices')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('remembered_devices_forgotten')
    .on('remembered_devices')
    .column('forgotten_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('remembered_devices').execute();
}
