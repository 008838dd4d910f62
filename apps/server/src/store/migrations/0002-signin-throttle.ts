import type { Kysely } from 'kysely';

/** Failed sign-ins per user name and per client address, for slowing down and locking. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signin_failures')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('signin_failures').execute();
}
