/**
 * The reports dashboard over a full store (against its target): `--entries` audit entries (default
 * 1,000,000) spread over the year before now, `--codes` codes (default 200,000) over the same
 * year, 2,000 users in 20 groups; on each store (`--stores sqlite,postgres`; PostgreSQL a cluster
 * of its own with fsync, synchronous_commit and full_page_writes on). The rows go in by one
 * INSERT ... SELECT each (generate_series on PostgreSQL, a recursive CTE on SQLite), then
 * PostgreSQL is analysed as autovacuum would. Then the dashboard's work is timed as the route
 * does it: `reportsOf` (domain/reports/reports.ts: the store's four GROUP BY statements and the breakdowns)
 * and the answer's JSON, over the last 30 and the last 90 days, in Europe/Berlin, a warm-up then
 * `--runs` runs (default 7): median and slowest. `npm run bench:reports`; prints a Markdown table
 * for docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { reportsOf } from '../src/domain/reports/reports.js';
import { openStore } from '../src/store/open-store.js';
import { createTestDatabase, durabilityOf, startPostgresCluster } from '../src/testing/postgres-cluster.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '1000000' },
    codes: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '7' },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
});
const ENTRIES = Number(values.entries);
const CODES = Number(values.codes);
const RUNS = Number(values.runs);
const STORES = (values.stores ?? '').split(',').filter((kind) => kind === 'sqlite' || kind === 'postgres');
const USERS = 2000;
const GROUPS = 20;
const DAY = 86_400_000;
const NOW = Date.now();
const YEAR_AGO = NOW - 365 * DAY;
const folder = mkdtempSync(join(tmpdir(), 'dea-reports-bench-'));

/**
 * The mix of events, one in twenty each: most entries are not counted by the reports (sign-ins,
 * verifications that failed, changes), as in a real trail.
 */
const EVENT_OF = `case n % 20
  when 0 then 'code.issued' when 1 then 'code.issued' when 2 then 'code.used' when 3 then 'code.sent'
  when 4 then 'signin.failed' when 5 then 'code.delivery_failed' when 6 then 'code.verify_lockout'
  when 7 then 'code.verify_failed' when 8 then 'code.verify_failed' when 9 then 'user.updated'
  else 'signin.succeeded' end`;
const ACTOR_OF = `case when n % 20 = 1 then 'console:agent' || (n % 10) else 'u' || (n % ${USERS}) end`;
const DETAILS_OF = `case n % 20
  when 4 then '{"reason":"wrong-password"}'
  when 3 then '{"codeId":"c' || n || '","channel":"mobile","provider":"http","attempts":1}'
  when 5 then '{"codeId":"c' || n || '","channel":"email","provider":"smtp","reason":"refused"}'
  else '{"codeId":"c' || n || '","channel":"screen","expiresAt":"2026-11-26T10:00:00.000Z"}' end`;

function fillSqlite(dataDir: string): void {
  const db = new SqliteDatabase(join(dataDir, 'dea.sqlite'));
  const upTo = (count: number) =>
    `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${count})`;
  db.exec('begin');
  db.exec(`${upTo(GROUPS)} insert into groups (id, name, priority) select 'g' || n, 'Group ' || n, n from s`);
  db.exec(
    `${upTo(USERS)} insert into users (id, username, password_hash, full_name, locale, disabled, created_at)
     select 'u' || (n - 1), 'user' || (n - 1), 'x', 'User ' || n, 'en', 0, ${YEAR_AGO} from s`,
  );
  db.exec(
    `insert into user_groups (user_id, group_id) select id, 'g' || (1 + cast(substr(id, 2) as integer) % ${GROUPS}) from users`,
  );
  db.exec(
    `${upTo(ENTRIES)} insert into audit_log (id, at, event, user_id, actor, client_address, details, seq)
     select 'a' || n, ${YEAR_AGO} + n * ${Math.floor((365 * DAY) / ENTRIES)}, ${EVENT_OF},
       case when n % 20 = 4 and n % 3 = 0 then null else 'u' || (n % ${USERS}) end, ${ACTOR_OF}, '192.0.2.1', ${DETAILS_OF}, n
     from s`,
  );
  db.exec(
    `${upTo(CODES)} insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left, last_used_at, invalidated_at, channel_type)
     select 'c' || n, 'u' || (n % ${USERS}), 'h' || n, ${YEAR_AGO} + n * ${Math.floor((365 * DAY) / CODES)},
       ${YEAR_AGO} + n * ${Math.floor((365 * DAY) / CODES)} + 900000, n % 2, null,
       case when n % 7 = 0 then ${YEAR_AGO} + n * ${Math.floor((365 * DAY) / CODES)} + 60000 end,
       case n % 3 when 0 then null when 1 then 'mobile' else 'email' end
     from s`,
  );
  db.exec('commit');
  db.close();
}

async function fillPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into groups (id, name, priority) select 'g' || n, 'Group ' || n, n from generate_series(1, ${GROUPS}) n`,
    );
    await client.query(
      `insert into users (id, username, password_hash, full_name, locale, disabled, created_at)
       select 'u' || (n - 1), 'user' || (n - 1), 'x', 'User ' || n, 'en', 0, ${YEAR_AGO} from generate_series(1, ${USERS}) n`,
    );
    await client.query(
      `insert into user_groups (user_id, group_id) select id, 'g' || (1 + substr(id, 2)::int % ${GROUPS}) from users`,
    );
    await client.query(
      `insert into audit_log (id, at, event, user_id, actor, client_address, details, seq)
       select 'a' || n, ${YEAR_AGO}::bigint + n * ${Math.floor((365 * DAY) / ENTRIES)}::bigint, ${EVENT_OF},
         case when n % 20 = 4 and n % 3 = 0 then null else 'u' || (n % ${USERS}) end, ${ACTOR_OF}, '192.0.2.1', ${DETAILS_OF}, n
       from generate_series(1, ${ENTRIES}) n`,
    );
    await client.query(
      `insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left, last_used_at, invalidated_at, channel_type)
       select 'c' || n, 'u' || (n % ${USERS}), 'h' || n, ${YEAR_AGO}::bigint + n * ${Math.floor((365 * DAY) / CODES)}::bigint,
         ${YEAR_AGO}::bigint + n * ${Math.floor((365 * DAY) / CODES)}::bigint + 900000, n % 2, null,
         case when n % 7 = 0 then ${YEAR_AGO}::bigint + n * ${Math.floor((365 * DAY) / CODES)}::bigint + 60000 end,
         case n % 3 when 0 then null when 1 then 'mobile' else 'email' end
       from generate_series(1, ${CODES}) n`,
    );
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}

const dateOf = (at: number) => new Date(at).toISOString().slice(0, 10);

const rows: string[] = [];
let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | undefined;
try {
  for (const kind of STORES) {
    const dataDir = join(folder, `data-${kind}`);
    let databaseUrl: string | undefined;
    let durability = '';
    if (kind === 'postgres') {
      cluster ??= await startPostgresCluster({}, { durable: true });
      databaseUrl = (await createTestDatabase(cluster.url)).url;
      durability = Object.entries(await durabilityOf(databaseUrl))
        .map(([name, value]) => `${name}=${value}`)
        .join(', ');
    }
    // The schema first (the migrations), then the rows straight into its tables.
    const migrated = await openStore({ dataDir, ...(databaseUrl !== undefined && { databaseUrl }) });
    await migrated.close();
    const filling = performance.now();
    if (databaseUrl === undefined) fillSqlite(dataDir);
    else await fillPostgres(databaseUrl);
    const filled = (performance.now() - filling) / 1000;
    console.error(`${kind}: ${ENTRIES} entries and ${CODES} codes in ${filled.toFixed(1)} s ${durability}`);
    const store = await openStore({ dataDir, ...(databaseUrl !== undefined && { databaseUrl }) });
    try {
      for (const days of [30, 90]) {
        const request = {
          from: dateOf(NOW - (days - 1) * DAY),
          to: dateOf(NOW),
          timeZone: 'Europe/Berlin',
          now: NOW,
        };
        const times: number[] = [];
        let issued = 0;
        for (let run = 0; run <= RUNS; run += 1) {
          const started = performance.now();
          const reports = await reportsOf(store, request);
          JSON.stringify(reports);
          const ms = performance.now() - started;
          if (run > 0) times.push(ms);
          issued =
            reports.reports.find((report) => report.metric === 'issued')?.breakdowns[0]?.rows[0]?.total ?? 0;
        }
        times.sort((a, b) => a - b);
        const median = times[Math.floor(times.length / 2)] ?? NaN;
        const slowest = times.at(-1) ?? NaN;
        rows.push(
          `| ${kind === 'sqlite' ? 'embedded (SQLite)' : 'PostgreSQL'} | ${days} days | ${issued.toLocaleString('en')} | ${median.toFixed(0)} ms | ${slowest.toFixed(0)} ms | under 300 ms |`,
        );
        console.error(rows.at(-1));
      }
    } finally {
      await store.close();
    }
  }
} finally {
  await cluster?.stop();
  // BENCH_KEEP=1: the embedded store stays, for a look at its plans.
  if (process.env.BENCH_KEEP === undefined) rmSync(folder, { recursive: true, force: true });
  else console.error(`kept ${folder}`);
}
console.log(
  `${ENTRIES.toLocaleString('en')} audit entries, ${CODES.toLocaleString('en')} codes, ${RUNS} runs after a warm-up\n`,
);
console.log('| store | period | codes issued in it | median | slowest | target |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
