import type { Kysely } from 'kysely';

/**
 * Remembered devices (issue 32): a browser that opened a registration session holds a cookie that
 * may let a code be shown on screen there for screenCodeRememberedDeviceDays. Each cookie is a row
 * bound to its person, kept only as a keyed hash of its token; forgetting a person's devices marks
 * their rows forgotten (the person, the help desk, dea user forget-devices).
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('remembered_devices').execute();
}
