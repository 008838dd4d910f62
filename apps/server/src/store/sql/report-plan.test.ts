import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Client } from 'pg';
import { describe } from 'vitest';
import { reportsOf } from '../../domain/reports/reports.js';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { recordPostgresQueries, recordSqlitePrepares, sqlitePlanOf } from '../../testing/recorded-sql.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { usernameOrThrow } from '@dea/contract';

const DAY = 86_400_000;

/** The columns a statement's bytecode reads from the rows of `table` (not from an index). */
function tableColumnsRead(dataDir: string, source: string, table: string): string[] {
  const database = new SqliteDatabase(join(dataDir, 'dea.sqlite'), { readonly: true });
  try {
    const { rootpage } = database
      .prepare("select rootpage from sqlite_schema where type = 'table' and name = ?")
      .get(table) as { rootpage: number };
    const parameters = new Array<number>(source.split('?').length - 1).fill(0);
    const steps = database.prepare(`explain ${source}`).all(...parameters) as {
      opcode: string;
      p1: number;
      p2: number;
    }[];
    const cursors = new Set(
      steps.filter((step) => step.opcode === 'OpenRead' && step.p2 === rootpage).map((step) => step.p1),
    );
    return steps
      .filter((step) => step.opcode === 'Column' && cursors.has(step.p1))
      .map((step) => `column ${step.p2}`);
  } finally {
    database.close();
  }
}
const NOW = Date.UTC(2026, 10, 21, 9);
/** A year of entries and codes, a few hundred a day: the report reads a month of them. */
const ROWS = 40_000;

/**
 * The reports are counted by the store over indexes (store/sql/reports.ts, migration 0026): each
 * statement finds the period's audit entries by (event, at) and the codes by their expiry or
 * invalidation time, and groups them; none reads the audit trail or the codes from their start.
 */
describe.each(STORE_KINDS)('the reports’ plans on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'count from the indexes of migration 0026 alone: the audit entries by (event, at), the codes by expiry and invalidation',
    async ({ testStore, expect }) => {
      const { store } = testStore;
      const userId = newId(NOW);
      await store.users.create({
        id: userId,
        username: usernameOrThrow('plan-user'),
        passwordHash: 'x',
        fullName: 'Plan',
        locale: 'en',
        createdAt: NOW,
      });
      const yearAgo = NOW - 365 * DAY;
      const step = Math.floor((365 * DAY) / ROWS);
      if (kind === 'postgres') {
        const client = new Client({ connectionString: testStore.databaseUrl });
        await client.connect();
        try {
          await client.query(
            `insert into audit_log (id, at, event, user_id, actor, details)
             select 'a' || n, $1::bigint + n * $2::bigint,
               (array['code.issued','code.used','signin.failed','user.updated','code.sent'])[1 + n % 5],
               $3, $3, '{"channel":"sms","provider":"http"}'
             from generate_series(1, $4::int) n`,
            [yearAgo, step, userId, ROWS],
          );
          await client.query(
            `insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left, invalidated_at, channel_type)
             select 'c' || n, $3, 'h' || n, $1::bigint + n * $2::bigint, $1::bigint + n * $2::bigint + 900000, n % 2,
               case when n % 7 = 0 then $1::bigint + n * $2::bigint + 60000 end, 'sms'
             from generate_series(1, $4::int) n`,
            [yearAgo, step, userId, ROWS],
          );
          await client.query('vacuum analyze audit_log, codes, user_groups, groups');
          const recorded = recordPostgresQueries();
          await reportsOf(store, { timeZone: 'Europe/Berlin', now: NOW }).finally(recorded.stop);
          const reports = recorded.queries.filter((query) => /from (audit_log a|codes c)/.test(query.text));
          expect(reports).toHaveLength(4);
          for (const query of reports) {
            const plan = (
              await client.query<{ 'QUERY PLAN': string }>(`explain ${query.text}`, query.values as unknown[])
            ).rows.map((row) => row['QUERY PLAN']);
            const text = plan.join('\n');
            expect(text, text).not.toMatch(/Seq Scan on (audit_log|codes)/);
            // PostgreSQL may take the index on (at, id) for the period where most entries are the report's.
            // The planner chooses among the indexes by its statistics (docs/benchmarks.md has a million entries).
            expect(text, text).toMatch(
              /Index (Only )?Scan (on|using) (audit_log_report|audit_log_at|codes_unused_expiry|codes_invalidated|codes_expiry)/,
            );
          }
        } finally {
          await client.end();
        }
        return;
      }
      for (let index = 0; index < 2_000; index += 1)
        await store.audit.append(
          { event: 'code.issued', userId, actor: userId, details: { channel: 'sms' } },
          yearAgo + index * step * 20,
        );
      const prepared = recordSqlitePrepares();
      await reportsOf(store, { timeZone: 'Europe/Berlin', now: NOW }).finally(prepared.stop);
      const reports = prepared.sources.filter((source) => /from "?(audit_log|codes)"? "?[ac]"?/.test(source));
      expect(reports).toHaveLength(4);
      for (const source of reports) {
        const plan = sqlitePlanOf(testStore.dataDir, source);
        // A step that reads a table whole is "SCAN a" or "SCAN c", with no index named.
        expect(
          plan.filter((line) => /^SCAN [ac]\b(?! USING)/.test(line)),
          plan.join('\n'),
        ).toEqual([]);
        expect(plan.join('\n')).toMatch(/(audit_log_report|codes_unused_expiry|codes_invalidated) \(/);
        // The audit entries' statement reads no column of the table's rows: the report columns are
        // virtual, and SQLite takes their values from audit_log_report (docs/benchmarks.md).
        if (/from "?audit_log"? "?a"?/.test(source))
          expect(tableColumnsRead(testStore.dataDir, source, 'audit_log'), source).toEqual([]);
        // The codes' indexes hold all a statement reads (the audit entries' generated columns are read from the index too).
        if (/from codes c/.test(source))
          expect(
            plan.filter((line) => /^SEARCH c /.test(line) && !line.includes('COVERING INDEX')),
            plan.join('\n'),
          ).toEqual([]);
      }
    },
    120_000,
  );
});
