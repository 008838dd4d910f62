import { sql, type Kysely } from 'kysely';

/**
 * The reports (domain/reports.ts, store/sql/reports.ts) count by day with GROUP BY: the audit
 * entries of a few events over a period are found by (event, at), never by reading the trail from
 * its start, and the codes taken out of use by the time they were (expired codes by `codes_expiry`,
 * migration 0012). The partial index holds only the codes ever invalidated.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('audit_log_event_at').on('audit_log').columns(['event', 'at']).execute();
  await sql`create index codes_invalidated on codes (invalidated_at) where invalidated_at is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('codes_invalidated').execute();
  await db.schema.dropIndex('audit_log_event_at').execute();
}
