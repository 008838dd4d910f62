/**
 * The cost of a request before the use case (issue 34): the server's CPU per request, read from
 * the operating system (/proc/<pid>/stat), of a bare Fastify JSON POST route and of the product's
 * cheapest routes in the same run, on the built server (`dist/server.js`, embedded store, logging
 * at info to nowhere, as `bench/load.ts` starts it): GET /healthz, the language list, userinfo with
 * a session, an unknown route (404), and tempPass/verify with a service key and a wrong code (for
 * a name nobody has: the same statement as a user's, never a lockout). The difference between the
 * product's cheapest route and the bare one is what every request pays before its use case.
 *
 * `npm run build`, then `npx tsx apps/server/bench/request-overhead.ts`. BENCH_SECONDS sets each
 * row's length (default 8), BENCH_ROUNDS how many times the rows are run in turn (default 2, the
 * figures are the median's), BENCH_ROUTES=healthz,languages,... a subset, BENCH_PROFILE=<dir>
 * writes the server's CPU profile there. BENCH_BEFORE=<server.js of an earlier build> (a copy of
 * its dist/ inside apps/server/, so that it finds the same packages) runs every product row on it
 * too, in turn with this build's, on a store of its own: before and after in the same breath.
 * Prints a Markdown table; writes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  type Running,
  SERVER_PACKAGE,
  cpuSecondsOf,
  startBare,
  startServer,
  stop,
} from './bench-processes.js';
import { XSRF_COOKIE_NAME, XSRF_HEADER_NAME, usernameOrThrow } from '@dea/contract';
import { newId } from '../src/crypto/ids.js';
import { hashPassword } from '../src/crypto/password-hash.js';
import { deriveKeys, secretBytesOf } from '../src/crypto/secret-keys.js';
import { createServiceKey } from '../src/domain/service-keys.js';
import { openStore } from '../src/store/open-store.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 32;
const SECRET = Buffer.alloc(32, 4).toString('base64');
const PASSWORD = 'overhead password';

interface Row {
  key: string;
  name: string;
  server: () => Running;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The status every answer must have. */
  status: number;
}

interface Figures {
  perSecond: number;
  cpuMicros: number;
  /** Answers of another status than the row's, and socket errors. */
  wrong: number;
}

async function measure(row: Row): Promise<Figures> {
  const server = row.server();
  let wrong = 0;
  const cpuBefore = cpuSecondsOf(server.child.pid);
  const result = await autocannon({
    url: `${server.base}${row.path}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: row.method,
    headers: row.headers,
    ...(row.body !== undefined && { body: row.body }),
    requests: [
      {
        onResponse: (status: number) => {
          if (status !== row.status) wrong += 1;
        },
      },
    ],
  });
  const cpu = cpuSecondsOf(server.child.pid) - cpuBefore;
  return {
    perSecond: result.requests.average,
    cpuMicros: (cpu * 1e6) / Math.max(1, result.requests.total),
    wrong: wrong + result.errors,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const builds = [
    { label: '', entry: 'dist/server.js' },
    ...(process.env.BENCH_BEFORE ? [{ label: ' (before)', entry: process.env.BENCH_BEFORE }] : []),
  ];
  const bare = await startBare();
  const products: (Running & { dataDir: string; serviceKey: string })[] = [];
  try {
    for (const build of builds) products.push(await startProduct(build.entry));
    const rows: Row[] = [bareRow(bare)];
    for (const [index, build] of builds.entries())
      rows.push(...(await productRows(products[index]!, build.label)));
    await measureRows(rows);
  } finally {
    for (const product of products) {
      await stop(product);
      rmSync(product.dataDir, { recursive: true, force: true });
    }
    await stop(bare);
  }
}

function bareRow(bare: Running): Row {
  return {
    key: 'bare',
    name: 'POST /bare (bare Fastify, JSON)',
    server: () => bare,
    path: '/bare',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    status: 200,
  };
}

/** A built server on a store of its own, with a user to sign in and a service key. */
async function startProduct(entry: string): Promise<Running & { dataDir: string; serviceKey: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-overhead-'));
  const store = await openStore({ dataDir, databaseUrl: undefined });
  const now = Date.now();
  const keys = deriveKeys(secretBytesOf(SECRET) ?? Buffer.alloc(0));
  const { key: serviceKey } = await createServiceKey(store, keys.serviceKey, 'overhead', ['verify'], now);
  await store.users.create({
    id: newId(now),
    username: usernameOrThrow('overhead'),
    passwordHash: await hashPassword(PASSWORD, 10),
    fullName: 'Overhead',
    locale: 'en',
    createdAt: now,
  });
  await store.close();
  const product = await startServer(entry, {
    DEA_DATA_DIR: dataDir,
    DEA_SECRET: SECRET,
    // The checkout's web build for every build measured (an earlier one's copy has none beside it).
    DEA_WEB_DIR: join(SERVER_PACKAGE, '..', 'web', 'dist'),
  });
  return { ...product, dataDir, serviceKey };
}

/** The product's rows on one server: its cheapest routes, a 404 and a verification. */
async function productRows(product: Running & { serviceKey: string }, label: string): Promise<Row[]> {
  const { serviceKey } = product;
  const signIn = await fetch(`${product.base}/login/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'overhead', password: PASSWORD }),
  });
  if (!signIn.ok) throw new Error(`the sign-in answered ${signIn.status}: ${await signIn.text()}`);
  const cookies = signIn.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const xsrf = cookies.find((cookie) => cookie.startsWith(`${XSRF_COOKIE_NAME}=`))?.split('=')[1] ?? '';
  const json = { 'content-type': 'application/json' };
  const rows: Row[] = [
    {
      key: 'healthz',
      name: 'GET /healthz',
      server: () => product,
      path: '/healthz',
      method: 'GET',
      headers: {},
      status: 200,
    },
    {
      key: 'languages',
      name: 'GET /dea/api/resourceFile/getLanguageList',
      server: () => product,
      path: '/dea/api/resourceFile/getLanguageList',
      method: 'GET',
      headers: {},
      status: 200,
    },
    {
      key: 'userinfo',
      name: 'POST /dea/api/userinfo (session)',
      server: () => product,
      path: '/dea/api/userinfo',
      method: 'POST',
      headers: { ...json, cookie: cookies.join('; '), [XSRF_HEADER_NAME]: xsrf },
      body: '{}',
      status: 200,
    },
    {
      key: 'unknown',
      name: 'GET /dea/api/nothing-here (404, Accept-Encoding of a browser)',
      server: () => product,
      path: '/dea/api/nothing-here',
      method: 'GET',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
      status: 404,
    },
    {
      key: 'verify',
      name: 'POST /dea/api/tempPass/verify (service key, wrong code, unknown name)',
      server: () => product,
      path: '/dea/api/tempPass/verify',
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${serviceKey}` },
      body: JSON.stringify({ username: `nobody-${newId()}`, code: 'WRONG23456' }),
      status: 200,
    },
  ];
  const chosen = process.env.BENCH_ROUTES?.split(',');
  return rows
    .filter((row) => chosen === undefined || chosen.includes(row.key))
    .map((row) => ({ ...row, name: `${row.name}${label}` }));
}

async function measureRows(measured: Row[]): Promise<void> {
  // Each row once to warm up (JIT, caches), then ROUNDS rounds in turn: a slower minute of a
  // shared machine then falls on every row alike.
  for (const row of measured) await measure(row);
  const runs = new Map<Row, Figures[]>(measured.map((row) => [row, []]));
  for (let round = 0; round < ROUNDS; round += 1)
    for (const row of measured) runs.get(row)!.push(await measure(row));
  const bareCpu = median(runs.get(measured[0]!)!.map((figures) => figures.cpuMicros));
  const lines = [
    `\`npx tsx apps/server/bench/request-overhead.ts\`, ${new Date().toISOString().slice(0, 16)} UTC, ${cpus().length} cores, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s a row (medians):`,
    '',
    '| route | requests/s | server CPU per request | more than the bare route | other answers |',
    '|---|---|---|---|---|',
    ...measured.map((row) => {
      const figures = runs.get(row)!;
      const cpu = median(figures.map((each) => each.cpuMicros));
      return `| ${row.name} | ${Math.round(median(figures.map((each) => each.perSecond)))} | ${Math.round(cpu)} µs | ${row.key === 'bare' ? '–' : `${Math.round(cpu - bareCpu)} µs`} | ${figures.reduce((sum, each) => sum + each.wrong, 0)} |`;
    }),
  ];
  console.log(lines.join('\n'));
}

await main();
