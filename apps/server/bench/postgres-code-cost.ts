/**
 * PostgreSQL's own work per code issue, per verification and per sealed audit entry:
 * the store's calls as the server makes them (tempPass/create's `codes.issue`, a verification's
 * `codes.verify`, gathered by turn of the event loop as under load), on a cluster started for the
 * run with durable commits. For each step: PostgreSQL's CPU (every process of the cluster, from
 * /proc), the WAL it wrote (pg_current_wal_lsn) and the codes' updates that were HOT, per call.
 * `npx tsx apps/server/bench/postgres-code-cost.ts`; BENCH_COST_CALLS calls a step (default 20,000),
 * BENCH_COST_PARALLEL calls in flight (default 32). Prints a table for docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { sealAuditTrail } from '../src/domain/audit/audit-trail.js';
import { deriveKeys } from '../src/crypto/secret-keys.js';
import { newId } from '../src/crypto/ids.js';
import { openStore } from '../src/store/open-store.js';
import type { VerifyCall } from '../src/store/sql/codes.js';
import { createTestDatabase, startPostgresCluster } from '../src/testing/postgres-cluster.js';

const CALLS = Number(process.env.BENCH_COST_CALLS ?? 20_000);
const PARALLEL = Number(process.env.BENCH_COST_PARALLEL ?? 32);
const CATEGORY = 'Self Service';

async function inParallel(count: number, call: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < count) await call(next++);
    }),
  );
}

async function main(): Promise<void> {
  // BENCH_COST_STATEMENTS=1: each step's statements, those inside the functions too, by time.
  const statements = process.env.BENCH_COST_STATEMENTS === '1';
  const cluster = await startPostgresCluster(
    statements ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } : {},
    { durable: true },
  );
  const database = await createTestDatabase(cluster.url);
  const store = await openStore({ dataDir: '.', databaseUrl: database.url });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  // The first WARM users' codes are issued and verified before anything is measured, and the tables
  // analyzed: the plans of the steps are those of tables with rows, as in production.
  const WARM = Math.ceil(CALLS / 10);
  const userIds = Array.from({ length: WARM + CALLS }, () => newId());
  const groupId = newId();
  await admin.query(`insert into groups (id, name, priority) values ($1, 'bench', 1)`, [groupId]);
  await admin.query(`insert into policies (group_id, category, options) values ($1, $2, $3)`, [
    groupId,
    CATEGORY,
    JSON.stringify({ enableECode: true }),
  ]);
  await admin.query(
    `insert into users (id, username, password_hash, full_name, locale, created_at)
     select id, 'u-' || id, 'x', 'U', 'en', 0 from unnest($1::text[]) id`,
    [userIds],
  );
  await admin.query(`insert into user_groups (user_id, group_id) select id, $2 from unnest($1::text[]) id`, [
    userIds,
    groupId,
  ]);
  await admin.query('vacuum analyze');
  if (statements) await admin.query('create extension pg_stat_statements');
  const keys = deriveKeys(randomBytes(32));
  const now = Date.now();
  const hashes = userIds.map(() => randomBytes(32).toString('hex'));

  const measure = async (name: string, count: number, step: () => Promise<unknown>) => {
    await admin.query('checkpoint');
    const before = await admin.query<{ lsn: string; hot: string; upd: string }>(
      `select pg_current_wal_lsn()::text as lsn, 0 as hot, 0 as upd`,
    );
    if (statements) await admin.query('select pg_stat_statements_reset()');
    const cpuBefore = cluster.cpuSeconds();
    const started = performance.now();
    await step();
    const seconds = (performance.now() - started) / 1000;
    const cpu = cluster.cpuSeconds() - cpuBefore;
    const after = await admin.query<{ bytes: string; lsn: string }>(
      `select pg_current_wal_lsn() - $1::pg_lsn as bytes, pg_current_wal_lsn()::text as lsn`,
      [before.rows[0]!.lsn],
    );
    if (statements) {
      const top = await admin.query<{ calls: string; micros: string; rows: string; query: string }>(
        `select calls::text as calls, round(total_exec_time * 1000 / $1)::text as micros, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query
         from pg_stat_statements order by total_exec_time desc limit 12`,
        [count],
      );
      console.log(`${name}: µs a call, by statement`);
      for (const row of top.rows)
        console.log(`  ${row.micros.padStart(6)} µs  ${row.calls.padStart(7)} calls  ${row.query}`);
    }
    // BENCH_COST_WALDUMP=1: what the WAL of the step holds, by kind of record (pg_waldump --stats).
    if (process.env.BENCH_COST_WALDUMP === '1') {
      const dir = (await admin.query<{ dir: string }>(`select current_setting('data_directory') as dir`))
        .rows[0]!.dir;
      console.log(
        `${name}:\n` +
          execFileSync(
            'pg_waldump',
            [
              '--stats=record',
              '-p',
              join(dir, 'pg_wal'),
              '-s',
              before.rows[0]!.lsn,
              '-e',
              after.rows[0]!.lsn,
            ],
            {
              encoding: 'utf8',
              env: { ...process.env, PATH: `/usr/lib/postgresql/15/bin:${process.env.PATH}` },
            },
          ),
      );
    }
    return {
      name,
      cpuMicros: (cpu * 1e6) / count,
      walBytes: Number(after.rows[0]!.bytes) / count,
      perSecond: count / seconds,
    };
  };
  const audit = (userId: string) => ({ userId, actor: userId, clientAddress: '127.0.0.1' });
  const verifyCall = (index: number, candidate: string): VerifyCall => ({
    userId: userIds[index]!,
    refusal: null,
    candidates: [candidate, candidate, candidate],
    keyCount: 1,
    defaultForm: 0,
    policyCategory: CATEGORY,
    policyOf: () => ({ enabled: true, form: 0, compareAtLeast: 1 }),
    now: now + 1,
    rule: { lockAfter: 10, lockMs: 60_000 },
    audit: audit(userIds[index]!),
  });
  const issue = (index: number) =>
    store.codes.issue(
      {
        id: newId(),
        userId: userIds[index]!,
        codeHash: hashes[index]!,
        createdAt: now,
        expiresAt: now + 3_600_000,
        uses: 1,
        channelType: null,
      },
      5,
      { event: 'code.issued', ...audit(userIds[index]!), details: { channel: 'screen' } },
    );
  await inParallel(WARM, issue);
  await inParallel(WARM, (index) => store.codes.verify(verifyCall(index, 'wrong')));
  await inParallel(WARM, (index) => store.codes.verify(verifyCall(index, hashes[index]!)));
  await sealAuditTrail(store, keys, now);
  await admin.query('analyze');
  const rows = [];
  rows.push(
    await measure('issue (tempPass/create)', CALLS, () => inParallel(CALLS, (index) => issue(WARM + index))),
  );
  rows.push(await measure('seal the issues’ entries', CALLS, () => sealAuditTrail(store, keys, now)));
  const statsBefore = await admin.query<{ upd: string; hot: string }>(
    `select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'codes'`,
  );
  // As the load bench: a wrong code, then the right one.
  rows.push(
    await measure('verification, a failure', CALLS, () =>
      inParallel(CALLS, (index) => store.codes.verify(verifyCall(WARM + index, 'wrong'))),
    ),
  );
  let used = 0;
  rows.push(
    await measure('verification, a success', CALLS, () =>
      inParallel(CALLS, async (index) => {
        const answer = await store.codes.verify(verifyCall(WARM + index, hashes[WARM + index]!));
        if (answer.outcome.used) used += 1;
      }),
    ),
  );
  if (used !== CALLS) throw new Error(`${used} of ${CALLS} verifications used their code`);
  rows.push(
    await measure('seal the verifications’ entries', 2 * CALLS, () => sealAuditTrail(store, keys, now)),
  );
  // The statistics reach pg_stat_user_tables when the backends report them (within seconds).
  let hot = '';
  for (let waited = 0; waited < 60; waited += 1) {
    const stats = await admin.query<{ upd: string; hot: string }>(
      `select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'codes'`,
    );
    const updates = Number(stats.rows[0]!.upd) - Number(statsBefore.rows[0]!.upd);
    hot = `${Number(stats.rows[0]!.hot) - Number(statsBefore.rows[0]!.hot)} of ${updates}`;
    if (updates >= CALLS) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await admin.end();
  await store.close();
  await database.drop();
  await cluster.stop();
  console.log(
    `${CALLS} calls a step, ${PARALLEL} in flight, PostgreSQL durable; codes' updates that were HOT: ${hot}\n`,
  );
  console.log('| step | PostgreSQL CPU a call | WAL a call | calls a second |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows)
    console.log(
      `| ${row.name} | ${row.cpuMicros.toFixed(0)} µs | ${row.walBytes.toFixed(0)} B | ${row.perSecond.toFixed(0)} |`,
    );
}

await main();
