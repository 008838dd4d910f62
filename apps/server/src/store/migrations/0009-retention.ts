import { sql, type Kysely } from 'kysely';

/**
 * The retention purge (domain/retention/retention.ts): a lease so that one instance purges at a time, and
 * indexes for the rows it looks for (the audit log already has one on its time).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('held_until', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_created').on('outbox').column('created_at').execute();
  await db.schema.createIndex('sessions_last_seen').on('sessions').column('last_seen_at').execute();
  await sql`create index codes_spent on codes (expires_at) where uses_left <= 0 or invalidated_at is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('codes_spent').execute();
  await db.schema.dropIndex('sessions_last_seen').execute();
  await db.schema.dropIndex('outbox_created').execute();
  await db.schema.dropTable('leases').execute();
}
