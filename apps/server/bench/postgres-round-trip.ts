/**
 * What one round trip to PostgreSQL costs the server's own CPU when its requests come one at a
 * time (a pair from one client, bench/load.ts and bench/request-overhead.ts): a statement that
 * does nothing (`select $1::int`), one after the other, the process's CPU per round trip (user and
 * system, process.cpuUsage) and its wall time, through node-postgres alone (a plain statement and
 * a named one), through its pool, and through the store's own pool and Kysely as the hot path's
 * reads run (`Store.ping`). No work of PostgreSQL's own is counted.
 * `npx tsx apps/server/bench/postgres-round-trip.ts`; BENCH_ROUND_TRIPS a row and round (default
 * 20,000, after 2,000 not counted), BENCH_ROUNDS rounds of the rows in turn (default 3, medians).
 */
import pg from 'pg';
import { openStore } from '../src/store/open-store.js';
import { startPostgresCluster } from '../src/testing/postgres-cluster.js';
import { median } from './bench-processes.js';

const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 2_000;

const cpuMicros = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function perRoundTrip(
  call: (index: number) => Promise<unknown>,
): Promise<{ cpu: number; wall: number }> {
  for (let index = 0; index < WARM_UP; index += 1) await call(index);
  const cpuBefore = cpuMicros();
  const started = performance.now();
  for (let index = 0; index < ROUND_TRIPS; index += 1) await call(index);
  return {
    cpu: (cpuMicros() - cpuBefore) / ROUND_TRIPS,
    wall: ((performance.now() - started) * 1000) / ROUND_TRIPS,
  };
}

async function main(): Promise<void> {
  const cluster = await startPostgresCluster();
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  const pool = new pg.Pool({ connectionString: cluster.url, max: 10 });
  const store = await openStore({ dataDir: '', databaseUrl: cluster.url });
  const rows: [string, (index: number) => Promise<unknown>][] = [
    [
      'node-postgres, one connection, a plain statement',
      (index) => client.query('select $1::int as n', [index]),
    ],
    [
      'node-postgres, one connection, a named statement',
      (index) => client.query({ name: 'round-trip', text: 'select $1::int as n', values: [index] }),
    ],
    ["node-postgres's pool", (index) => pool.query('select $1::int as n', [index])],
    ["the store's pool through Kysely (Store.ping)", () => store.ping()],
  ];
  const measured = rows.map(() => ({ cpu: [] as number[], wall: [] as number[] }));
  try {
    for (let round = 0; round < ROUNDS; round += 1)
      for (const [index, [, call]] of rows.entries()) {
        const { cpu, wall } = await perRoundTrip(call);
        measured[index]?.cpu.push(cpu);
        measured[index]?.wall.push(wall);
      }
  } finally {
    await Promise.all([client.end(), pool.end(), store.close()]);
    await cluster.stop();
  }
  process.stdout.write(
    `${ROUND_TRIPS} round trips one after the other, medians of ${ROUNDS} rounds in turn\n\n| how | server CPU a round trip | wall |\n|---|---|---|\n`,
  );
  for (const [index, [name]] of rows.entries()) {
    const { cpu = [], wall = [] } = measured[index] ?? {};
    process.stdout.write(`| ${name} | ${median(cpu).toFixed(0)} µs | ${median(wall).toFixed(0)} µs |\n`);
  }
}

await main();
