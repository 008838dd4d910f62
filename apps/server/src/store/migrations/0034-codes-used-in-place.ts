import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * On PostgreSQL, a code's use is a HOT update: no index of the codes names a column a
 * use changes (`uses_left`, `last_used_at`), in its columns or its condition, and the table's
 * pages keep half their room free, so the code's new version stays on its page and no index gets a new
 * entry. Before, a use wrote a new entry in every index of the codes (and a lock record), about
 * 1.1 KB of WAL; each issue wrote two index entries fewer than before, too.
 *
 * The indexes that named `uses_left` go; what read by them reads by the ones left, taking the
 * uses left from the row: a user's active codes (verification, issue's limit, the help desk) by
 * `codes_user` (user_id, expires_at), the same columns, also holding the user's used codes until
 * the purge removes them; the reports' codes that expired unused by `codes_expiry`; the purge's
 * used codes that have not expired yet by `codes_expiry` too (the live codes, from now on), and
 * the revoked ones by `codes_invalidated` (store/sql/retention.ts). The embedded store keeps its
 * indexes: SQLite has no HOT, and reads the reports' columns from `codes_unused_expiry`.
 *
 * The unique index on an audit entry's place in the trail holds only the placed (sealed) entries:
 * an entry is written unplaced, and every query of `seq` names a place (or `seq is not null`), so
 * each entry written is one index entry fewer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index codes_active_by_user`.execute(db);
  await sql`drop index codes_spent`.execute(db);
  await sql`drop index codes_unused_expiry`.execute(db);
  await sql`alter table codes set (fillfactor = 50)`.execute(db);
  await sql`create unique index audit_log_seq_placed on audit_log (seq) where seq is not null`.execute(db);
  await sql`drop index audit_log_seq`.execute(db);
  await sql`alter index audit_log_seq_placed rename to audit_log_seq`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create unique index audit_log_seq_all on audit_log (seq)`.execute(db);
  await sql`drop index audit_log_seq`.execute(db);
  await sql`alter index audit_log_seq_all rename to audit_log_seq`.execute(db);
  await sql`alter table codes reset (fillfactor)`.execute(db);
  await sql`create index codes_unused_expiry on codes (expires_at, user_id, channel_type, invalidated_at, uses_left) where invalidated_at is null and uses_left > 0`.execute(
    db,
  );
  await sql`create index codes_spent on codes (expires_at) where uses_left <= 0 or invalidated_at is not null`.execute(
    db,
  );
  await sql`create index codes_active_by_user on codes (user_id, expires_at) where uses_left > 0 and invalidated_at is null`.execute(
    db,
  );
}
