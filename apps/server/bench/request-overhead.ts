/**
 * The cost of a request before the use case: the server's CPU per request, read from
 * the operating system (/proc/<pid>/stat), of a bare Fastify JSON POST route and of the product's
 * cheapest routes in the same run, on the built server (`dist/server.js`, embedded store, logging
 * at info to nowhere, as `bench/load.ts` starts it): GET /healthz, the language list, userinfo with
 * a session, an unknown route (404), and tempPass/verify with a service key and a wrong code (for
 * a name nobody has: the same statement as a user's, never a lockout). The difference between the
 * product's cheapest route and the bare one is what every request pays before its use case.
 *
 * `npm run build`, then `npx tsx apps/server/bench/request-overhead.ts`. BENCH_SECONDS sets each
 * row's length (default 8), BENCH_ROUNDS how many times the rows are run in turn (default 2, the
 * figures are the median's), BENCH_ROUTES=healthz,languages,... a subset (`pair`: a code's issue and its verification,
 * a code on screen with the session and its verification with the service key, BENCH_PAIR_CLIENTS
 * clients (default 8) one request at a time, its CPU per pair beside the bare route's per request
 * at the same concurrency; measured only when named; `floor`: the same pair against
 * bench/pair-floor-server.ts, bare Fastify and the store's own schema doing only what a second
 * factor cannot leave out, the floor no build of the product can go under; measured only when
 * named; BENCH_FLOOR_INDEXES=keys the floor without the schema's other indexes on codes and audit
 * entries), BENCH_POSTGRES=1 every store a database of a PostgreSQL started for the run with durable
 * commits instead of the embedded store, BENCH_PROFILE=<dir>
 * writes the server's CPU profile there. BENCH_BEFORE=<server.js of an earlier build> (a copy of
 * its dist/ inside apps/server/, so that it finds the same packages) runs every product row on it
 * too, in turn with this build's, on a store of its own: before and after in the same breath.
 * Prints a Markdown table; writes nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  type Running,
  SERVER_PACKAGE,
  cpuSecondsOf,
  groupShowingCodes,
  haltPolling,
  median,
  startBare,
  startProcess,
  startServer,
  stop,
} from './bench-processes.js';
import { XSRF_COOKIE_NAME, XSRF_HEADER_NAME, usernameOrThrow } from '@dea/contract';
import { newId } from '../src/crypto/ids.js';
import { hashPassword } from '../src/crypto/password-hash.js';
import { deriveKeys, secretBytesOf } from '../src/crypto/secret-keys.js';
import { createServiceKey } from '../src/domain/codes/service-keys.js';
import { EMBEDDED_STORE_FILE, openStore } from '../src/store/open-store.js';
import { createTestDatabase, startPostgresCluster } from '../src/testing/postgres-cluster.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 32;
const SECRET = Buffer.alloc(32, 4).toString('base64');
const PASSWORD = 'overhead password';
const PAIR_CLIENTS = Number(process.env.BENCH_PAIR_CLIENTS ?? 8);
/** BENCH_ROUTES: the rows asked for (all but the pair when unset). */
const CHOSEN_ROUTES = process.env.BENCH_ROUTES?.split(',');

interface Row {
  key: string;
  name: string;
  server: () => Running;
  /** Connections (default CONNECTIONS). */
  connections?: number;
  /** Drives the row itself instead of autocannon (the pair): how many it did, and how many went wrong. */
  drive?: (server: Running) => Promise<{ done: number; wrong: number }>;
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
  if (row.drive !== undefined) {
    const cpuBefore = cpuSecondsOf(server.child.pid);
    const began = performance.now();
    const { done, wrong } = await row.drive(server);
    const cpu = cpuSecondsOf(server.child.pid) - cpuBefore;
    return {
      perSecond: done / ((performance.now() - began) / 1000),
      cpuMicros: (cpu * 1e6) / Math.max(1, done),
      wrong,
    };
  }
  let wrong = 0;
  const cpuBefore = cpuSecondsOf(server.child.pid);
  const result = await autocannon({
    url: `${server.base}${row.path}`,
    connections: row.connections ?? CONNECTIONS,
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

async function main(): Promise<void> {
  const builds = [
    { label: '', entry: 'dist/server.js' },
    ...(process.env.BENCH_BEFORE ? [{ label: ' (before)', entry: process.env.BENCH_BEFORE }] : []),
  ];
  // BENCH_POSTGRES=1: every store a database of its own on a PostgreSQL started for the run, with
  // durable commits (fsync, synchronous_commit, full_page_writes on) as in production.
  const cluster =
    process.env.BENCH_POSTGRES === '1' ? await startPostgresCluster({}, { durable: true }) : undefined;
  const databases: { url: string; drop(): Promise<void> }[] = [];
  const newStoreUrl = async (): Promise<string | undefined> => {
    if (cluster === undefined) return undefined;
    const database = await createTestDatabase(cluster.url);
    databases.push(database);
    return database.url;
  };
  const bare = await startBare();
  const products: (Running & { dataDir: string; serviceKey: string })[] = [];
  let floor: Awaited<ReturnType<typeof startFloor>> | undefined;
  try {
    if (CHOSEN_ROUTES?.includes('floor')) floor = await startFloor(await newStoreUrl());
    for (const build of builds) products.push(await startProduct(build.entry, await newStoreUrl()));
    const rows: Row[] = [bareRow(bare)];
    if (CHOSEN_ROUTES?.some((key) => key === 'pair' || key === 'floor'))
      rows.push({
        ...bareRow(bare),
        key: 'bare-pair',
        connections: PAIR_CLIENTS,
        name: `POST /bare, ${PAIR_CLIENTS} connections`,
      });
    const started = floor;
    if (started !== undefined)
      rows.push({
        key: 'floor',
        name: `the pair's floor (bare Fastify and the ${cluster === undefined ? "store's file" : 'PostgreSQL database'}, bench/pair-floor-server.ts) from ${PAIR_CLIENTS} clients (per pair)`,
        server: () => started,
        path: '',
        method: 'POST',
        headers: {},
        status: 200,
        drive: pairDriver(started.clients, started.serviceKey),
      });
    for (const [index, build] of builds.entries())
      rows.push(...(await productRows(products[index]!, build.label)));
    await measureRows(rows);
  } finally {
    for (const running of [...products, ...(floor === undefined ? [] : [floor])]) {
      await stop(running);
      rmSync(running.dataDir, { recursive: true, force: true });
    }
    await stop(bare);
    for (const database of databases) await database.drop();
    await cluster?.stop();
  }
}

/** The indexes on codes and audit entries that BENCH_FLOOR_INDEXES=keys takes from the floor. */
const FLOOR_DROPPED_INDEXES = [
  'codes_user',
  'codes_spent',
  'codes_expiry',
  'codes_unused_expiry',
  'codes_invalidated',
  'audit_log_at',
  'audit_log_seq',
  'audit_log_unsealed',
  'audit_log_report',
];

/**
 * The floor's server (bench/pair-floor-server.ts) on a store of its own (a file, or with
 * `databaseUrl` a PostgreSQL database), made by the product's migrations, with the pair's users, a
 * session each and a service key written straight into it.
 */
async function startFloor(
  databaseUrl: string | undefined,
): Promise<Running & { dataDir: string; serviceKey: string; clients: PairClient[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-floor-'));
  const store = await openStore({ dataDir, databaseUrl });
  await store.close();
  const now = Date.now();
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const clients = pairUsernames().map((username) => ({
    username,
    userId: newId(now),
    sessionId: randomBytes(32).toString('base64url'),
  }));
  const keyId = newId(now);
  const secret = randomBytes(32).toString('base64url');
  const rows: [string, unknown[]][] = [
    // BENCH_FLOOR_INDEXES=keys: the floor without the schema's other indexes on codes and audit
    // entries (only their keys, and the active codes' by user that a verification reads by), to
    // see what those indexes cost a pair.
    ...(process.env.BENCH_FLOOR_INDEXES === 'keys'
      ? FLOOR_DROPPED_INDEXES.map((name): [string, unknown[]] => [`drop index if exists ${name}`, []])
      : []),
    ...clients.flatMap(({ username, userId, sessionId }): [string, unknown[]][] => [
      [
        'insert into users (id, username, password_hash, full_name, locale, created_at) values ($1, $2, $3, $4, $5, $6)',
        [userId, username, '-', 'Overhead', 'en', now],
      ],
      [
        'insert into sessions (id_hash, user_id, created_at, last_seen_at) values ($1, $2, $3, $4)',
        [sha256(sessionId), userId, now, now],
      ],
    ]),
    [
      'insert into service_keys (id, name, key_hash, scopes, created_at) values ($1, $2, $3, $4, $5)',
      [keyId, 'floor', sha256(secret), '["verify"]', now],
    ],
  ];
  if (databaseUrl === undefined) {
    const db = new Database(join(dataDir, EMBEDDED_STORE_FILE));
    for (const [text, values] of rows) db.prepare(text.replace(/\$\d+/g, '?')).run(...values);
    db.close();
  } else {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    for (const [text, values] of rows) await client.query(text, values);
    await client.end();
  }
  const floor = await startProcess(
    [
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      '--import',
      'tsx',
      'bench/pair-floor-server.ts',
    ],
    {
      ...(databaseUrl === undefined
        ? { FLOOR_FILE: join(dataDir, EMBEDDED_STORE_FILE) }
        : { FLOOR_DATABASE_URL: databaseUrl }),
      FLOOR_KEY: randomBytes(32).toString('hex'),
    },
    /floor: (http:\/\/\S+)/,
  );
  return {
    ...floor,
    dataDir,
    serviceKey: `${keyId}.${secret}`,
    clients: clients.map(({ username, userId, sessionId }) => ({
      username,
      userId,
      headers: {
        'content-type': 'application/json',
        cookie: `dea_session=${sessionId}`,
        'x-xsrf-token': sha256(`xsrf:${sessionId}`),
      },
    })),
  };
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

/** A pair's client: the session it issues with, and the user it verifies for. */
interface PairClient {
  headers: Record<string, string>;
  userId: string;
  username: string;
}

/** The names of the pair's users, one a client: `overhead-1`, `overhead-2`, ... */
const pairUsernames = (): string[] =>
  Array.from({ length: PAIR_CLIENTS }, (_, index) => `overhead-${index + 1}`);

/**
 * A code's issue and its verification from PAIR_CLIENTS clients for SECONDS, each client a user of its own (as the
 * users of an organisation, and bench/load.ts's pairs) issuing a code on screen (tempPass/create
 * with its session) and then verifying it (tempPass/verify with the service key), one request at a
 * time; wrong: a pair whose code was not issued or not accepted.
 */
function pairDriver(clients: PairClient[], serviceKey: string) {
  return async (server: Running): Promise<{ done: number; wrong: number }> => {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    let wrong = 0;
    const client = async ({ headers, userId, username }: PairClient): Promise<void> => {
      while (performance.now() < until) {
        const issued = await fetch(`${server.base}/dea/api/tempPass/create`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            count: 1,
            return: ['id', 'password'],
            attrs: { user: { id: userId }, locale: 'en' },
          }),
        });
        const answer = (await issued.json()) as { result?: { rows?: { password?: string }[] } };
        const code = answer.result?.rows?.[0]?.password;
        const verified =
          code === undefined
            ? undefined
            : await fetch(`${server.base}/dea/api/tempPass/verify`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceKey}` },
                body: JSON.stringify({ username, code }),
              });
        const verdict = verified === undefined ? '' : await verified.text();
        done += 1;
        if (!verdict.includes('"valid":true')) wrong += 1;
      }
    };
    await Promise.all(clients.map(client));
    return { done, wrong };
  };
}

/** A built server on a store of its own, with users to sign in (the pair's too) and a service key. */
async function startProduct(
  entry: string,
  databaseUrl: string | undefined,
): Promise<Running & { dataDir: string; serviceKey: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-overhead-'));
  const store = await openStore({ dataDir, databaseUrl });
  const now = Date.now();
  const keys = deriveKeys(secretBytesOf(SECRET) ?? Buffer.alloc(0));
  const { key: serviceKey } = await createServiceKey(store, keys.serviceKey, 'overhead', ['verify'], now);
  // Codes on screen for every user, as many unused as a run leaves (each pair uses its code).
  const group = await groupShowingCodes(store, 'Overhead', 30);
  const passwordHash = await hashPassword(PASSWORD, 10);
  for (const username of ['overhead', ...(CHOSEN_ROUTES?.includes('pair') ? pairUsernames() : [])]) {
    const userId = newId(now);
    await store.users.create({
      id: userId,
      username: usernameOrThrow(username),
      passwordHash,
      fullName: 'Overhead',
      locale: 'en',
      createdAt: now,
    });
    await store.groups.addMember(group, userId);
  }
  await store.close();
  const product = await startServer(entry, {
    DEA_DATA_DIR: dataDir,
    ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
    DEA_SECRET: SECRET,
    // The checkout's web build for every build measured (an earlier one's copy has none beside it).
    DEA_WEB_DIR: join(SERVER_PACKAGE, '..', 'web', 'dist'),
  });
  return { ...product, dataDir, serviceKey };
}

/** A user of the product signed in: the headers of its session, its id and name. */
async function signIn(product: Running, username: string): Promise<PairClient> {
  const answered = await fetch(`${product.base}/login/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  if (!answered.ok) throw new Error(`the sign-in answered ${answered.status}: ${await answered.text()}`);
  const cookies = answered.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const xsrf = cookies.find((cookie) => cookie.startsWith(`${XSRF_COOKIE_NAME}=`))?.split('=')[1] ?? '';
  const headers = {
    'content-type': 'application/json',
    cookie: cookies.join('; '),
    [XSRF_HEADER_NAME]: xsrf,
  };
  const info = await fetch(`${product.base}/dea/api/userinfo`, { method: 'POST', headers, body: '{}' });
  const answer = await info.text();
  const { userId } = JSON.parse(answer) as { userId?: string };
  if (!info.ok || userId === undefined) throw new Error(`userinfo answered ${info.status}: ${answer}`);
  return { headers, userId, username };
}

/** The product's rows on one server: its cheapest routes, a 404 and a verification. */
async function productRows(product: Running & { serviceKey: string }, label: string): Promise<Row[]> {
  const { serviceKey } = product;
  const json = { 'content-type': 'application/json' };
  const { headers: session } = await signIn(product, 'overhead');
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
      headers: session,
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
  if (CHOSEN_ROUTES?.includes('pair'))
    rows.push({
      key: 'pair',
      name: `a code's issue and its verification from ${PAIR_CLIENTS} clients (per pair)`,
      server: () => product,
      path: '',
      method: 'POST',
      headers: {},
      status: 200,
      drive: pairDriver(
        await Promise.all(pairUsernames().map((username) => signIn(product, username))),
        serviceKey,
      ),
    });
  return rows
    .filter((row) => CHOSEN_ROUTES === undefined || CHOSEN_ROUTES.includes(row.key))
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
    `\`npx tsx apps/server/bench/request-overhead.ts\`, ${new Date().toISOString().slice(0, 16)} UTC, ${cpus().length} cores, ${haltPolling()}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s a row (medians):`,
    '',
    '| route | requests/s | server CPU per request | more than the bare route | other answers |',
    '|---|---|---|---|---|',
    ...measured.map((row) => {
      const figures = runs.get(row)!;
      const cpu = median(figures.map((each) => each.cpuMicros));
      return `| ${row.name} | ${Math.round(median(figures.map((each) => each.perSecond)))} | ${Math.round(cpu)} µs | ${row.key === 'bare' ? '–' : `${Math.round(cpu - bareCpu)} µs`} | ${figures.reduce((sum, each) => sum + each.wrong, 0)} |`;
    }),
  ];
  const pairs = measured.filter((row) => row.key === 'pair' || row.key === 'floor');
  const barePair = measured.find((row) => row.key === 'bare-pair');
  if (barePair !== undefined) {
    const bareAtPairs = median(runs.get(barePair)!.map((figures) => figures.cpuMicros));
    for (const row of pairs) {
      const cpu = median(runs.get(row)!.map((figures) => figures.cpuMicros));
      lines.push(
        '',
        `${row.name}: ${Math.round(cpu)} µs of server CPU a pair = ${(cpu / bareAtPairs).toFixed(1)} bare requests at ${Math.round(bareAtPairs)} µs (${PAIR_CLIENTS} connections; the guard of ADR 0051, from one client: at most 14)`,
      );
    }
  }
  // The product's pair against the floor's in the same run: both wait alike, so their ratio moves
  // far less with the cores' idle state than a count of bare requests from one client does
  // (docs/benchmarks.md, "The pair's floor").
  const [product, floor] = ['pair', 'floor'].map((key) => measured.find((row) => row.key === key));
  if (product !== undefined && floor !== undefined) {
    const cpuOf = (row: Row) => median(runs.get(row)!.map((figures) => figures.cpuMicros));
    lines.push('', `the product's pair / the floor's pair: ${(cpuOf(product) / cpuOf(floor)).toFixed(2)}`);
  }
  console.log(lines.join('\n'));
}

await main();
