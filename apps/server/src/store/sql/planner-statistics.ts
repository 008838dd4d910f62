import { sql } from 'kysely';
import type { Db } from './db.js';

/** How often a store asks PostgreSQL how much its tables changed since their last analysis. */
const ASK_EVERY_MS = 2_000;
/** A table is analysed again once this many rows changed since its last analysis, at least. */
const CHANGED_ROWS_AT_LEAST = 1_000;

/**
 * PostgreSQL's statistics of the tables a bulk write grows (a first sync, an import), renewed as
 * they grow. PostgreSQL plans a read of many ids (`external_id in (...)`, a batch's 200) from its
 * statistics of the column: without them (a table that grew since its last analysis) it takes
 * each value to match 0.5% of the rows, 200 values the whole table, and reads all of it for every
 * batch: a first sync grew quadratic, and a full pass right after one read 50,000 users 100 times
 * (9 s of its 11). Autovacuum analyses such a table within a minute or so; a bulk write does not
 * wait for it. A table that changed by half of what it held at its last analysis (and by
 * CHANGED_ROWS_AT_LEAST rows) is analysed again; a store asks at most every ASK_EVERY_MS. The
 * embedded store plans with its indexes alone: it has NO_PLANNER_STATISTICS.
 */
export interface PlannerStatistics {
  /** Renews the statistics of these tables where they are stale; answers the tables analysed. */
  renew(db: Db, tables: readonly string[]): Promise<string[]>;
}

/** The embedded store's: SQLite plans these reads by its indexes, whatever it holds. */
export const NO_PLANNER_STATISTICS: PlannerStatistics = { renew: async () => [] };

/** PostgreSQL's, one per store (kept across its transactions). */
export class PostgresPlannerStatistics implements PlannerStatistics {
  private askedAt = Number.NEGATIVE_INFINITY;

  async renew(db: Db, tables: readonly string[]): Promise<string[]> {
    const now = performance.now();
    if (now - this.askedAt < ASK_EVERY_MS) return [];
    this.askedAt = now;
    const { rows } = await sql<{ relname: string; live: number | string; changed: number | string }>`
      select relname, n_live_tup as live, n_mod_since_analyze as changed from pg_stat_user_tables
      where schemaname = current_schema() and relname in (${sql.join(tables)})`.execute(db);
    const stale = rows
      .filter(({ live, changed }) => {
        const since = Number(changed);
        return since >= Math.max(CHANGED_ROWS_AT_LEAST, Number(live) - since);
      })
      .map(({ relname }) => relname)
      .sort();
    if (stale.length > 0) await sql`analyze ${sql.join(stale.map((table) => sql.table(table)))}`.execute(db);
    return stale;
  }
}
