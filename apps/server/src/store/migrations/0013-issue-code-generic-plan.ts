import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** The function of migration 0011, by its argument types. */
export const ISSUE_CODE_SIGNATURE =
  'dea_issue_code(text, text, text, bigint, bigint, integer, text, integer, text, text, text, text, text, text)';

/**
 * `dea_issue_code` plans its statements once per connection instead of once per code. PL/pgSQL
 * keeps a statement's plan in PostgreSQL's plan cache, which compares a generic plan with plans
 * made for each call's values. Once the codes table had grown to a few million rows and been
 * analysed, the generic estimate of "the user's codes that expire after now" (a third of the
 * user's rows) lost to the per-call one, and every code's issue planned its insert again: about
 * 40 µs of reading the column statistics per code, a fall of a fifth in tempPass/create's
 * throughput from the seventh minute of a ten-minute `npm run bench:load`. Both plans are the
 * same scan of `codes_active_by_user`, so the generic one is kept whatever the statistics say.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql
    .raw(`alter function ${ISSUE_CODE_SIGNATURE} set plan_cache_mode = force_generic_plan`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql.raw(`alter function ${ISSUE_CODE_SIGNATURE} reset plan_cache_mode`).execute(db);
}
