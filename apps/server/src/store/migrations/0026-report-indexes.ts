import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** What the reports break an audit entry down by, from its details (store/sql/reports.ts). */
const REPORT_COLUMNS = [
  ['report_channel', 'channel'],
  ['report_provider', 'provider'],
  ['report_reason', 'reason'],
] as const;

/**
 * The reports (domain/reports/reports.ts, store/sql/reports.ts) count by day with GROUP BY, from indexes
 * alone: the audit entries of a few events over a period are found by (event, at), and the index
 * holds what they are counted by (user, actor, and the channel, provider and reason of their
 * details, as generated columns: virtual on SQLite, whose index keeps their values; stored on
 * PostgreSQL, which rewrites the table once, a few seconds per million entries). The codes that
 * expired unused and those taken out of use are found by partial indexes on those times holding
 * the user and channel (and the columns of the condition, which SQLite reads from the index only
 * when it holds them). Without them, a 90-day report over a million entries read each entry's row
 * and parsed its details: 0.7 s embedded and 0.6 s on PostgreSQL (`npm run bench:reports`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [column, field] of REPORT_COLUMNS) {
    const value = postgres
      ? sql`(details::json ->> ${sql.lit(field)}) stored`
      : sql`(json_extract(details, ${sql.lit(`$.${field}`)})) virtual`;
    await sql`alter table audit_log add column ${sql.ref(column)} text generated always as ${value}`.execute(
      db,
    );
  }
  const held = sql.join(
    ['user_id', 'actor', ...REPORT_COLUMNS.map(([column]) => column)].map((name) => sql.ref(name)),
  );
  // PostgreSQL answers from the index alone (an index-only scan) with the rest as INCLUDE columns.
  await (postgres
    ? sql`create index audit_log_report on audit_log (event, at) include (${held})`
    : sql`create index audit_log_report on audit_log (event, at, ${held})`
  ).execute(db);
  await sql`create index codes_unused_expiry on codes (expires_at, user_id, channel_type, invalidated_at, uses_left) where invalidated_at is null and uses_left > 0`.execute(
    db,
  );
  await sql`create index codes_invalidated on codes (invalidated_at, user_id, channel_type) where invalidated_at is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('codes_invalidated').execute();
  await db.schema.dropIndex('codes_unused_expiry').execute();
  await db.schema.dropIndex('audit_log_report').execute();
  for (const [column] of [...REPORT_COLUMNS].reverse())
    await sql`alter table audit_log drop column ${sql.ref(column)}`.execute(db);
}
