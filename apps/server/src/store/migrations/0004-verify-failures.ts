import type { Kysely } from 'kysely';

/** Consecutive failed code verifications per user, and the lockout they lead to. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('verify_failures')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_at', 'bigint')
    .addColumn('locked_until', 'bigint')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('verify_failures').execute();
}
