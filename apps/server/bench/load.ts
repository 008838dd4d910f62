/**
 * Throughput of the product's hot calls against a bare Fastify JSON POST route, in the same run, on
 * this machine: `npm run bench:load` after `npm run build`, embedded store; with
 * BENCH_POSTGRES=1 also on a PostgreSQL started for the run, with durable commits as in production
 * (fsync, synchronous_commit and full_page_writes on, read back and written with the figures;
 * the tests' clusters keep them off). Each server is its own process
 * (the built server, logging at info to nowhere), the load comes from this one (autocannon, 32
 * connections). `tempPass/create` runs in equal parts (3; BENCH_PARTS), to see whether it stays
 * flat as codes pile up. BENCH_LOAD_SECONDS sets each call's length (default 20; from 300 on it is
 * a long run, in 10 parts, written to a section of its own); BENCH_PROFILE=<dir> writes the server's
 * CPU profile there; BENCH_CALLS=userinfo or create measures one call alone. Writes
 * docs/benchmarks.md.
 *
 * BENCH_CALLS=verify-burst (also part of the default run) is the sign-in bulkheads' scenario:
 * the p99 of `/validate/check` (a wrong code, one request at a time) quiet, then during waves of 60
 * parallel sign-ins with made-up names from one address; target: during < 2 × quiet + 50 ms.
 * Written to a section of its own.
 *
 * BENCH_CALLS=verify (also part of the default run) measures verification: pools of
 * codes issued with tempPass/create (a row of its own), then verified through
 * `/dea/api/tempPass/verify` (JSON, service key), `/validate/check` (form, by address; JSON,
 * service key) and RADIUS (a client in this process: PAP Access-Requests, BENCH_RADIUS_IN_FLIGHT at
 * a time), each pool's codes once right and once wrong (a wrong code, then the right one, for each
 * code), BENCH_VERIFY_CODES codes a pool. The bare route is measured (BARE_AROUND_SECONDS) before
 * and after every row of the run, and each row is compared with the mean of the two: its rate
 * with their rates, and a pair's server CPU with their server CPU per request (from /proc). Then
 * the pairs rows, the guard's measure of a pair (ADR 0051): BENCH_PAIRS pairs (issue a code on screen, then
 * verify it with the service key) from 1 and from 8 clients, each client one request at a time,
 * the server's CPU per pair against the bare route's CPU per request at the same concurrency,
 * measured right before and right after. BENCH_SERVER_ENTRY=<server.js of another build> (a copy
 * of its dist/ inside apps/server/, so that it finds the same packages) runs that build instead,
 * to compare builds run in turn.
 */
import { createSocket } from 'node:dgram';
import type { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import {
  type Running,
  cpuSecondsOf,
  groupShowingCodes,
  haltPolling,
  startBare,
  startServer,
  stop,
} from './bench-processes.js';
import { XSRF_COOKIE_NAME, XSRF_HEADER_NAME, usernameOrThrow } from '@dea/contract';
import { newId } from '../src/crypto/ids.js';
import { deriveKeys, secretBytesOf } from '../src/crypto/secret-keys.js';
import { createServiceKey } from '../src/domain/codes/service-keys.js';
import { PacketCode, decodePacket, encodeAccessRequest } from '../src/radius/packet.js';
import { hashPassword } from '../src/crypto/password-hash.js';
import { openStore } from '../src/store/open-store.js';
import { createTestDatabase, durabilityOf, startPostgresCluster } from '../src/testing/postgres-cluster.js';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const CONNECTIONS = 32;
// BENCH_CALLS=userinfo leaves tempPass/create out (to profile one call alone).
const CALLS = (process.env.BENCH_CALLS ?? 'userinfo,create,verify,verify-burst').split(',');
// Sessions of the load's users are needed by userinfo and tempPass/create alone.
const LOAD_SESSIONS = CALLS.includes('userinfo') || CALLS.includes('create');
// Verification's own users: codes valid long enough for a slow run, a few codes each per pool.
const VERIFY_USERS = 1_000;
const VERIFY_CODES = Number(process.env.BENCH_VERIFY_CODES ?? 5_000);
// The pairs rows: this many pairs of issue and verify at each concurrency (clients in turn).
const PAIRS = Number(process.env.BENCH_PAIRS ?? 2_000);
// Pairs run first and not counted, at each concurrency: the server's first pairs compile the path
// (V8 optimises a function after many calls) and prepare its statements (docs/benchmarks.md,
// "Verification against a bare route").
const PAIR_WARMUP = Number(process.env.BENCH_PAIR_WARMUP ?? 2_000);
const PAIR_CLIENTS = [1, 8];
// BENCH_ONLY_PAIRS=1 runs the pairs rows alone (with BENCH_CALLS=verify), to profile them.
const ONLY_PAIRS = process.env.BENCH_ONLY_PAIRS === '1';
const RADIUS_IN_FLIGHT = Number(process.env.BENCH_RADIUS_IN_FLIGHT ?? 64);
const RADIUS_SECRET = 'bench-radius-secret-0123456789';
// The bare route around each row: before it and after it, the same yardstick in the same breath.
const BARE_AROUND_SECONDS = Math.min(SECONDS, 5);
const BURST_SIGN_INS = 60;
const BURST_SECONDS = Number(process.env.BENCH_BURST_SECONDS ?? 10);
// Codes of the run are valid for a minute (then they pile up as expired rows until the purge, as
// used ones do). With this many users none reaches the policy's 100 unused codes in a minute at
// up to 16,000 creations a second; with 2,500, a long run at 5,000 a second turned most creations
// after its first minute into refusals (error 148).
const USERS = LOAD_SESSIONS ? 10_000 : 2_000;
const CODE_VALIDITY_MINUTES = 1;
// A long run (BENCH_LOAD_SECONDS=600) shows whether tempPass/create stays flat as codes pile up;
// it runs in more parts and is written to a section of its own.
const LONG_RUN = SECONDS >= 300;
const PARTS = Number(process.env.BENCH_PARTS ?? (LONG_RUN ? 10 : 3));
const SECTION = LONG_RUN ? 'load-long' : 'load-bench';
const SECRET = Buffer.alloc(32, 4).toString('base64');
// BENCH_SERVER_ENV=NAME=value,... passes further settings to the server (to compare them);
// BENCH_PG_SETTINGS=name=value,... sets PostgreSQL. Read before anything starts: a bad entry stops the run at once.
const SERVER_ENV = settingsOf('BENCH_SERVER_ENV');
const PG_SETTINGS = settingsOf('BENCH_PG_SETTINGS');

interface Figures {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Answers of HTTP 200 that were not what was asked (a refusal in the envelope: no code issued). */
  refused: number;
  /** The server's own CPU time per answered request (user and system), in microseconds. */
  cpuMicros: number;
  /** PostgreSQL's CPU time per request (its processes, user and system); NaN on the embedded store. */
  storeCpuMicros: number;
}

/** PostgreSQL's CPU seconds so far (its cluster's processes) while a store of it is measured. */
let storeCpuSeconds: () => number = () => Number.NaN;

/** The sum of a counter's series in the server's /metrics (every label), or NaN without metrics. */
async function counterOf(server: Running, name: string): Promise<number> {
  const response = await fetch(`${server.base}/metrics`);
  if (!response.ok) return Number.NaN;
  return (await response.text())
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/**
 * Runs autocannon against one call. `issuedCounter` names the counter that must grow by one for
 * every answer (the product answers its refusals with HTTP 200 and an error in the envelope, which
 * autocannon counts as success): what did not count is reported as refused. Requests still in
 * flight when the run ends may be counted on one side only, so a difference up to the number of
 * connections is not a refusal.
 */
async function load(
  server: Running,
  name: string,
  url: string,
  request: (index: number) => { headers: Record<string, string>; body: string },
  seconds = SECONDS,
  issuedCounter?: string,
  /** A number of requests instead of a time; and what each answer's body is for. */
  extra: {
    amount?: number;
    onResponse?: (body: string, index: number) => void;
    /** Connections instead of CONNECTIONS (the pairs' bare route runs at the pairs' concurrency). */
    connections?: number;
  } = {},
): Promise<Figures> {
  let index = 0;
  const issuedBefore = issuedCounter === undefined ? 0 : await counterOf(server, issuedCounter);
  const cpuBefore = cpuSecondsOf(server.child.pid);
  const storeCpuBefore = storeCpuSeconds();
  const { onResponse } = extra;
  const started = performance.now();
  let lastAnswer = started;
  const run = autocannon({
    url,
    connections: extra.connections ?? CONNECTIONS,
    ...(extra.amount === undefined ? { duration: seconds } : { amount: extra.amount }),
    method: 'POST',
    requests: [
      {
        setupRequest: (req, context: object) => {
          (context as { index?: number }).index = index += 1;
          return { ...req, method: 'POST', ...request(index) };
        },
        ...(onResponse !== undefined && {
          onResponse: (_status: number, body: string, context: object) =>
            onResponse(body, (context as { index: number }).index),
        }),
      },
    ],
  });
  // autocannon ends a run of a number of requests at its next one-second tick, and its duration
  // with it: a row's rate is taken from the last answer instead (at 10 s it was up to 10% low).
  // The promise autocannon answers is its tracker too, an emitter of each answer (its types omit it).
  (run as unknown as EventEmitter).on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await run;
  const cpuMicros = ((cpuSecondsOf(server.child.pid) - cpuBefore) * 1e6) / Math.max(1, result.requests.total);
  const storeCpuMicros = ((storeCpuSeconds() - storeCpuBefore) * 1e6) / Math.max(1, result.requests.total);
  const ok = result.requests.total - result.non2xx;
  const issued = issuedCounter === undefined ? ok : (await counterOf(server, issuedCounter)) - issuedBefore;
  const missing = ok - issued;
  return {
    name,
    // A run of a number of requests may last under a second: its rate is what it did in its time.
    perSecond:
      extra.amount === undefined
        ? result.requests.average
        : result.requests.total / Math.max(1e-3, (lastAnswer - started) / 1000),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    refused: Number.isNaN(missing) || missing > (extra.connections ?? CONNECTIONS) ? missing : 0,
    cpuMicros,
    storeCpuMicros,
  };
}

interface Seeded {
  names: string[];
  /** Users whose codes stay valid half an hour: verification's. */
  verifyNames: string[];
  /** A service key with the scope verify. */
  serviceKey: string;
}

/** Users in a group whose policy shows codes on screen and lets each hold 100 unused codes. */
async function seed(dataDir: string, databaseUrl: string | undefined): Promise<Seeded> {
  const store = await openStore({ dataDir, databaseUrl });
  const now = Date.now();
  const keys = deriveKeys(secretBytesOf(SECRET) ?? Buffer.alloc(0));
  const { key: serviceKey } = await createServiceKey(store, keys.serviceKey, 'bench', ['verify'], now);
  const verifyGroupId = await groupShowingCodes(store, 'Verify', 30);
  const groupId = await groupShowingCodes(store, 'Load', CODE_VALIDITY_MINUTES);
  const passwordHash = await hashPassword('load password', 10);
  /** `count` users named `<prefix>-<n>`, members of the group. */
  const usersIn = async (group: string, prefix: string, count: number): Promise<string[]> => {
    const created: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const id = newId(now);
      const username = `${prefix}-${index}`;
      await store.users.create({
        id,
        username: usernameOrThrow(username),
        passwordHash,
        fullName: username,
        locale: 'en',
        createdAt: now,
      });
      await store.groups.addMember(group, id);
      created.push(username);
    }
    return created;
  };
  const names = await usersIn(groupId, 'load', USERS);
  const verifyNames = await usersIn(verifyGroupId, 'verify', CALLS.includes('verify') ? VERIFY_USERS : 0);
  await store.close();
  return { names, verifyNames, serviceKey };
}

interface Session {
  userId: string;
  headers: Record<string, string>;
}

async function signIn(base: string, username: string): Promise<Session> {
  const response = await fetch(`${base}/login/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'load password' }),
  });
  if (!response.ok)
    throw new Error(`the sign-in of ${username} answered ${response.status}: ${await response.text()}`);
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const xsrf = cookies.find((cookie) => cookie.startsWith(`${XSRF_COOKIE_NAME}=`))?.split('=')[1] ?? '';
  const headers = {
    'content-type': 'application/json',
    cookie: cookies.join('; '),
    [XSRF_HEADER_NAME]: xsrf,
  };
  // Every session of the run is checked once, so the load never measures refusals.
  const info = await fetch(`${base}/dea/api/userinfo`, { method: 'POST', headers, body: '{}' });
  const { userId } = (await info.json()) as { userId?: string };
  if (!info.ok || userId === undefined) throw new Error(`userinfo of ${username} answered ${info.status}`);
  return { userId, headers };
}

/** `NAME=value,...` of the variable `variable` as settings; a value may hold `=` (the first one names). */
function settingsOf(variable: 'BENCH_SERVER_ENV' | 'BENCH_PG_SETTINGS'): Record<string, string> {
  return Object.fromEntries(
    (process.env[variable] ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at < 1) throw new Error(`${variable}: "${pair}" is not NAME=value`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}

interface BurstFigures {
  label: string;
  quiet: number[];
  during: number[];
  /** The sign-ins' answers during the burst: `error <n>` of the envelope, or `HTTP <status>`. */
  signIns: Map<string, number>;
  verifyAnswers: Map<string, number>;
}

const percentileOf = (times: number[], share: number): number => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
};

/**
 * Verification quiet, then during a burst of sign-ins: `/validate/check` one request at a time (a
 * wrong code for a user of its own each time, so no lock shortens the path), first for
 * BURST_SECONDS alone, then as long again during waves of BURST_SIGN_INS parallel sign-ins with
 * made-up names from this one address (each wave as soon as the one before is answered).
 */
async function verifyDuringBurst(server: Running, label: string, names: string[]): Promise<BurstFigures> {
  let next = 0;
  const verifyAnswers = new Map<string, number>();
  const verifyOnce = async (): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${server.base}/validate/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        user: names[(next += 1) % names.length] ?? '',
        pass: 'WRONG23456',
      }).toString(),
    });
    const body = (await response.json()) as { result?: { value?: boolean } };
    const answer =
      response.status === 200 ? `value ${String(body.result?.value)}` : `HTTP ${response.status}`;
    verifyAnswers.set(answer, (verifyAnswers.get(answer) ?? 0) + 1);
    return performance.now() - started;
  };
  const verifyFor = async (until: () => boolean): Promise<number[]> => {
    const times: number[] = [];
    while (!until()) times.push(await verifyOnce());
    return times;
  };
  for (let index = 0; index < 50; index += 1) await verifyOnce();
  verifyAnswers.clear();
  const quietEnd = performance.now() + BURST_SECONDS * 1000;
  const quiet = await verifyFor(() => performance.now() >= quietEnd);

  const signIns = new Map<string, number>();
  let stopping = false;
  let made = 0;
  const signInOnce = async (): Promise<void> => {
    const response = await fetch(`${server.base}/login/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: `made-up-${(made += 1)}-${newId()}`, password: 'a guess' }),
    });
    const answer =
      response.status === 200
        ? `error ${((await response.json()) as { error: number }).error}`
        : `HTTP ${response.status}`;
    if (response.status !== 200) await response.arrayBuffer();
    signIns.set(answer, (signIns.get(answer) ?? 0) + 1);
  };
  // Waves of BURST_SIGN_INS parallel sign-ins, each as soon as the one before is answered.
  const burst = (async () => {
    while (!stopping) await Promise.all(Array.from({ length: BURST_SIGN_INS }, signInOnce));
  })();
  verifyAnswers.clear();
  const duringEnd = performance.now() + BURST_SECONDS * 1000;
  const during = await verifyFor(() => performance.now() >= duringEnd);
  stopping = true;
  await burst;
  return { label, quiet, during, signIns, verifyAnswers };
}

const bursts: BurstFigures[] = [];

/** What the scheduled retention purge removed during each store's run (dea_purged_rows_total). */
const purged: string[] = [];

/** A bare Fastify server kept running through the whole run: the yardstick of every row. */
let bareServer: Running | undefined;
/** Every measurement of the bare route, in order. */
const bareRuns: Figures[] = [];

/**
 * The bare route for BARE_AROUND_SECONDS, at CONNECTIONS connections (kept in bareRuns, the
 * yardstick of the rows) or at another concurrency (the pairs' own, not kept there).
 */
async function measureBare(connections = CONNECTIONS): Promise<Figures> {
  bareServer ??= await startBare();
  const server = bareServer;
  const figures = await load(
    server,
    'POST /bare (bare Fastify, JSON)',
    `${server.base}/bare`,
    () => ({ headers: { 'content-type': 'application/json' }, body: '{}' }),
    BARE_AROUND_SECONDS,
    undefined,
    { connections },
  );
  if (connections === CONNECTIONS) bareRuns.push(figures);
  return figures;
}

interface Around {
  figures: Figures;
  /** The bare route's requests a second just before and just after the row. */
  before: number;
  after: number;
  /** The bare route's server CPU per request (µs), the mean of the runs before and after the row. */
  bareCpuMicros: number;
}

/** Runs a row between two measurements of the bare route (the one before may be the last row's after). */
async function bracketed(run: () => Promise<Figures>): Promise<Around> {
  const before = bareRuns.at(-1) ?? (await measureBare());
  const figures = await run();
  const after = await measureBare();
  return {
    figures,
    before: before.perSecond,
    after: after.perSecond,
    bareCpuMicros: (before.cpuMicros + after.cpuMicros) / 2,
  };
}

const ofBare = ({ figures, before, after }: Around): number => (200 * figures.perSecond) / (before + after);

const tableRow = (label: string, around: Around, extra = '', withStore = false): string => {
  const { figures } = around;
  const store = Number.isNaN(figures.storeCpuMicros) ? '–' : `${Math.round(figures.storeCpuMicros)} µs`;
  return `| ${label} | ${figures.name}${extra} | ${Math.round(figures.perSecond)} | ${Math.round(around.before)} / ${Math.round(around.after)} | ${ofBare(around).toFixed(1)}% | ${figures.p50} ms | ${figures.p99} ms | ${figures.errors} | ${figures.refused} | ${Math.round(figures.cpuMicros)} µs |${withStore ? ` ${store} |` : ''}`;
};

/** What each store's verification rows found: for the section's summary against the targets. */
const verifySummaries: string[] = [];
const verifyRows: string[] = [];
/** The pairs rows (pairsOf), a table of their own. */
const pairRows: string[] = [];

/** A pair of issue and verification from one client: at most this many bare requests of server CPU. */
const PAIR_GUARD_BARE_REQUESTS = 14;
/** RADIUS: at least this many Access-Requests a second, none lost, on each store. */
const RADIUS_GUARD_PER_SECOND = 2_000;
/** The guard's rows (docs/decisions/0051): each store's check, what was measured, whether it holds. */
const guardRows: string[] = [];
const guard = (label: string, check: string, measured: string, holds: boolean): void => {
  guardRows.push(`| ${label} | ${check} | ${measured} | ${holds ? 'yes' : '**no**'} |`);
};

/**
 * A pair's server CPU as the guard measures it (ADR 0051): `clients` clients, each issuing a code
 * on screen (tempPass/create, a signed-in session) and then verifying it (tempPass/verify, the
 * service key), one request at a time, PAIRS pairs in all after PAIR_WARMUP not counted; the
 * server's CPU per pair from /proc against the bare route's CPU per request at the same
 * concurrency, measured right before and right after.
 */
async function pairsOf(
  label: string,
  server: Running,
  serviceKey: string,
  sessions: Session[],
  clients: number,
): Promise<void> {
  let next = 0;
  let last = 0;
  let failed = 0;
  const client = async (): Promise<void> => {
    while (next < last) {
      const session = sessions[next % sessions.length]!;
      next += 1;
      const issued = await fetch(`${server.base}/dea/api/tempPass/create`, {
        method: 'POST',
        headers: session.headers,
        body: JSON.stringify({
          count: 1,
          return: ['id', 'password'],
          attrs: { user: { id: session.userId }, locale: 'en' },
        }),
      });
      const code = ((await issued.json()) as { result?: { rows?: { password?: string }[] } }).result
        ?.rows?.[0]?.password;
      if (code === undefined) {
        failed += 1;
        continue;
      }
      const verified = await fetch(`${server.base}/dea/api/tempPass/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceKey}` },
        body: JSON.stringify({ userId: session.userId, code }),
      });
      await verified.arrayBuffer();
    }
  };
  const pairs = async (count: number): Promise<void> => {
    last = next + count;
    await Promise.all(Array.from({ length: clients }, client));
  };
  // A pair that fails during the warm-up fails the row as well (`failed` counts both).
  await pairs(PAIR_WARMUP);
  const before = await measureBare(clients);
  const countsBefore = await verificationCounts(server);
  const cpuBefore = cpuSecondsOf(server.child.pid);
  const storeCpuBefore = storeCpuSeconds();
  const started = performance.now();
  await pairs(PAIRS);
  const seconds = (performance.now() - started) / 1000;
  const cpuPerPair = ((cpuSecondsOf(server.child.pid) - cpuBefore) * 1e6) / PAIRS;
  const storeCpu = ((storeCpuSeconds() - storeCpuBefore) * 1e6) / PAIRS;
  const outcomes = outcomesSince(countsBefore, await verificationCounts(server));
  const after = await measureBare(clients);
  const bareCpu = (before.cpuMicros + after.cpuMicros) / 2;
  pairRows.push(
    `| ${label} | ${clients} | ${PAIRS} (${outcomes}${failed > 0 ? `, ${failed} not issued` : ''}) | ${Math.round(PAIRS / seconds)} | ${Math.round(cpuPerPair)} µs | ${Math.round(before.cpuMicros)} / ${Math.round(after.cpuMicros)} µs | ${(cpuPerPair / bareCpu).toFixed(1)} | ${Number.isNaN(storeCpu) ? '–' : `${Math.round(storeCpu)} µs`} |`,
  );
  verifySummaries.push(
    `${label}, ${clients} client${clients === 1 ? '' : 's'} in turn: a pair of issue and verify ${Math.round(cpuPerPair)} µs of server CPU = ${(cpuPerPair / bareCpu).toFixed(1)} bare requests at ${Math.round(bareCpu)} µs each at the same concurrency${clients === 1 ? ` (guard: at most ${PAIR_GUARD_BARE_REQUESTS})` : ''}`,
  );
  if (clients === 1)
    guard(
      label,
      `a pair of issue and verification from one client, in bare requests of server CPU (at most ${PAIR_GUARD_BARE_REQUESTS})`,
      `${(cpuPerPair / bareCpu).toFixed(1)} (${Math.round(cpuPerPair)} µs against ${Math.round(bareCpu)} µs)`,
      cpuPerPair / bareCpu <= PAIR_GUARD_BARE_REQUESTS && failed === 0,
    );
}

/** A free UDP port for the server's RADIUS listener (taken by the server right after). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface Pool {
  /** For each code issued: its user's name and id, and the code. */
  codes: { username: string; userId: string; code: string }[];
}

const wrongOf = (code: string) => code.replace(/^./, (first) => (first === '2' ? '3' : '2'));

/**
 * A verification row's requests: for each pooled code a wrong one, then the right one, for the same
 * user (request 2k - 1 wrong, 2k right), so failures never reach the lock and every code is used.
 */
function attemptOf(pool: Pool, index: number): { username: string; userId: string; code: string } {
  const entry = pool.codes[Math.floor((index - 1) / 2) % pool.codes.length]!;
  return { ...entry, code: index % 2 === 1 ? wrongOf(entry.code) : entry.code };
}

/** Counts of dea_code_verifications_total by outcome, to say what the answers were. */
async function verificationCounts(server: Running): Promise<Record<string, number>> {
  const response = await fetch(`${server.base}/metrics`);
  const counts: Record<string, number> = {};
  for (const line of (await response.text()).split('\n')) {
    const match = /^dea_code_verifications_total\{[^}]*outcome="([a-z_]+)"[^}]*\} (\d+)/.exec(line);
    if (match) counts[match[1]!] = (counts[match[1]!] ?? 0) + Number(match[2]);
  }
  return counts;
}

const outcomesSince = (before: Record<string, number>, after: Record<string, number>): string =>
  Object.keys(after)
    .sort()
    .map((outcome) => `${after[outcome]! - (before[outcome] ?? 0)} ${outcome}`)
    .join(', ');

/**
 * RADIUS Access-Requests from this process: `count` of them, `inFlight` at a time over sockets of
 * 200 identifiers each, each answered or given up after two seconds (lost). CPU as for HTTP rows.
 */
async function radiusLoad(
  server: Running,
  port: number,
  count: number,
  attempt: (index: number) => { username: string; code: string },
  inFlight: number,
): Promise<Figures & { accepted: number; rejected: number; lost: number }> {
  const sockets = Array.from({ length: Math.ceil(inFlight / 200) }, () => createSocket('udp4'));
  await Promise.all(
    sockets.map((socket) => new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))),
  );
  const pending = new Map<string, { started: number; done: (answer: number | undefined) => void }>();
  sockets.forEach((socket, socketIndex) =>
    socket.on('message', (data) => {
      const packet = decodePacket(data);
      const key = `${socketIndex}:${packet?.identifier}`;
      pending.get(key)?.done(packet?.code);
    }),
  );
  const times: number[] = [];
  let accepted = 0;
  let rejected = 0;
  let lost = 0;
  let next = 0;
  const cpuBefore = cpuSecondsOf(server.child.pid);
  const storeCpuBefore = storeCpuSeconds();
  const started = performance.now();
  const worker = async (slot: number): Promise<void> => {
    const socket = sockets[Math.floor(slot / 200)]!;
    const identifier = slot % 200;
    while (next < count) {
      const index = (next += 1);
      const { username, code } = attempt(index);
      const packet = encodeAccessRequest({
        identifier,
        authenticator: randomBytes(16),
        userName: username,
        password: code,
        secret: RADIUS_SECRET,
        messageAuthenticator: true,
      });
      const key = `${Math.floor(slot / 200)}:${identifier}`;
      const sent = performance.now();
      const answer = await new Promise<number | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 2000);
        pending.set(key, {
          started: sent,
          done: (code) => {
            clearTimeout(timer);
            resolve(code);
          },
        });
        socket.send(packet, port, '127.0.0.1');
      });
      pending.delete(key);
      if (answer === PacketCode.accessAccept) accepted += 1;
      else if (answer === PacketCode.accessReject) rejected += 1;
      else lost += 1;
      if (answer !== undefined) times.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, slot) => worker(slot)));
  const seconds = (performance.now() - started) / 1000;
  const cpuMicros = ((cpuSecondsOf(server.child.pid) - cpuBefore) * 1e6) / count;
  const storeCpuMicros = ((storeCpuSeconds() - storeCpuBefore) * 1e6) / count;
  sockets.forEach((socket) => socket.close());
  return {
    name: `RADIUS Access-Request (PAP, ${inFlight} in flight)`,
    perSecond: (accepted + rejected) / seconds,
    p50: Math.round(percentileOf(times, 0.5)),
    p99: Math.round(percentileOf(times, 0.99)),
    errors: lost,
    refused: 0,
    cpuMicros,
    storeCpuMicros,
    accepted,
    rejected,
    lost,
  };
}

/**
 * Verification's rows: before each door, a pool of VERIFY_CODES codes issued with tempPass/create
 * (a row of its own: a code's issue in the same breath), then 2 × VERIFY_CODES verifications of
 * them through that door, a wrong code and the right one for each.
 */
async function verifyRowsOf(
  label: string,
  server: Running,
  seeded: Seeded,
  radiusPort: number,
): Promise<void> {
  const sessions: Session[] = [];
  for (const name of seeded.verifyNames) sessions.push(await signIn(server.base, name));
  const nameOf = new Map(sessions.map((session, index) => [session.userId, seeded.verifyNames[index]!]));
  const issuePool = async (): Promise<{ pool: Pool; around: Around }> => {
    const pool: Pool = { codes: [] };
    const at = (index: number) => sessions[index % sessions.length]!;
    const around = await bracketed(() =>
      load(
        server,
        `POST tempPass/create (${VERIFY_CODES} codes to verify)`,
        `${server.base}/dea/api/tempPass/create`,
        (index) => ({
          headers: at(index).headers,
          body: JSON.stringify({
            count: 1,
            return: ['id', 'password'],
            attrs: { user: { id: at(index).userId }, locale: 'en' },
          }),
        }),
        SECONDS,
        'dea_codes_issued_total',
        {
          amount: VERIFY_CODES,
          onResponse: (body, index) => {
            const code = (JSON.parse(body) as { result?: { rows?: { password?: string }[] } }).result
              ?.rows?.[0]?.password;
            const { userId } = at(index);
            if (code !== undefined) pool.codes.push({ userId, username: nameOf.get(userId) ?? '', code });
          },
        },
      ),
    );
    return { pool, around };
  };
  const doors: {
    name: string;
    run: (pool: Pool) => Promise<Figures & { lost?: number }>;
  }[] = [
    {
      name: 'POST /dea/api/tempPass/verify (JSON, service key)',
      run: (pool) =>
        load(
          server,
          'POST /dea/api/tempPass/verify (JSON, service key)',
          `${server.base}/dea/api/tempPass/verify`,
          (index) => {
            const { userId, code } = attemptOf(pool, index);
            return {
              headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.serviceKey}` },
              body: JSON.stringify({ userId, code }),
            };
          },
          SECONDS,
          undefined,
          { amount: 2 * pool.codes.length },
        ),
    },
    {
      name: 'POST /validate/check (form, by address)',
      run: (pool) =>
        load(
          server,
          'POST /validate/check (form, by address)',
          `${server.base}/validate/check`,
          (index) => {
            const { username, code } = attemptOf(pool, index);
            return {
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({ user: username, pass: code }).toString(),
            };
          },
          SECONDS,
          undefined,
          { amount: 2 * pool.codes.length },
        ),
    },
    {
      name: 'POST /validate/check (JSON, service key)',
      run: (pool) =>
        load(
          server,
          'POST /validate/check (JSON, service key)',
          `${server.base}/validate/check`,
          (index) => {
            const { username, code } = attemptOf(pool, index);
            return {
              headers: { 'content-type': 'application/json', authorization: seeded.serviceKey },
              body: JSON.stringify({ user: username, pass: code }),
            };
          },
          SECONDS,
          undefined,
          { amount: 2 * pool.codes.length },
        ),
    },
    {
      name: 'RADIUS',
      run: (pool) =>
        radiusLoad(
          server,
          radiusPort,
          2 * pool.codes.length,
          (index) => attemptOf(pool, index),
          RADIUS_IN_FLIGHT,
        ),
    },
  ];
  const creates: Figures[] = [];
  for (const door of ONLY_PAIRS ? [] : doors) {
    const { pool, around: issued } = await issuePool();
    creates.push(issued.figures);
    verifyRows.push(tableRow(label, issued, '', true));
    const countsBefore = await verificationCounts(server);
    const around = await bracketed(() => door.run(pool));
    const outcomes = outcomesSince(countsBefore, await verificationCounts(server));
    verifyRows.push(tableRow(label, around, ` (${outcomes})`, true));
    if (door.name.startsWith('POST /dea/api')) {
      // A pair's CPU in bare requests: the server CPU of an issue and a verification divided by
      // the bare route's server CPU per request, both read from /proc in the same breath (the
      // checker's measure; the bare route's rate would flatter a loaded machine).
      const bareCpu = (issued.bareCpuMicros + around.bareCpuMicros) / 2;
      const pair = issued.figures.cpuMicros + around.figures.cpuMicros;
      verifySummaries.push(
        `${label}: a verification ${Math.round(around.figures.cpuMicros)} µs of server CPU against ${Math.round(issued.figures.cpuMicros)} µs for a code's issue (guard: at most), ${ofBare(around).toFixed(1)}% of the bare route's requests a second; a pair of issue and verify ${Math.round(pair)} µs of server CPU, ${(pair / bareCpu).toFixed(1)} bare requests at ${Math.round(bareCpu)} µs of server CPU each at ${CONNECTIONS} connections${Number.isNaN(around.figures.storeCpuMicros) ? '' : `; PostgreSQL's own CPU ${Math.round(around.figures.storeCpuMicros)} µs a verification against ${Math.round(issued.figures.storeCpuMicros)} µs an issue`}`,
      );
    }
    if (door.name === 'POST /dea/api/tempPass/verify (JSON, service key)')
      guard(
        label,
        "a verification's server CPU against an issue's (at most)",
        `${Math.round(around.figures.cpuMicros)} µs against ${Math.round(issued.figures.cpuMicros)} µs`,
        around.figures.cpuMicros <= issued.figures.cpuMicros,
      );
    if (door.name === 'RADIUS') {
      const radius = around.figures as Figures & { lost?: number };
      verifySummaries.push(
        `${label}: RADIUS ${Math.round(radius.perSecond)} Access-Requests a second, ${radius.lost ?? 0} lost (guard: at least 2,000, none lost)`,
      );
      guard(
        label,
        `RADIUS Access-Requests a second (at least ${RADIUS_GUARD_PER_SECOND.toLocaleString('en')}, none lost)`,
        `${Math.round(radius.perSecond)}, ${radius.lost ?? 0} lost`,
        radius.perSecond >= RADIUS_GUARD_PER_SECOND && (radius.lost ?? 0) === 0,
      );
    }
  }
  for (const clients of PAIR_CLIENTS) await pairsOf(label, server, seeded.serviceKey, sessions, clients);
}

async function measureStore(label: string, databaseUrl: string | undefined): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-load-'));
  const seeded = await seed(dataDir, databaseUrl);
  const { names } = seeded;
  const radiusPort = await freePort();
  const server = await startServer(process.env.BENCH_SERVER_ENTRY ?? 'dist/server.js', {
    DEA_DATA_DIR: dataDir,
    DEA_SECRET: SECRET,
    DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '10000',
    // The bench reads dea_purged_rows_total on the port it loads.
    DEA_PUBLIC_METRICS: 'true',
    // The scenario's verifications come from this address, without a service key.
    DEA_VALIDATE_CHECK_CLIENTS: '127.0.0.1',
    ...(CALLS.includes('verify') && {
      DEA_RADIUS_PORT: String(radiusPort),
      DEA_RADIUS_HOST: '127.0.0.1',
      DEA_RADIUS_CLIENTS: `127.0.0.1=${RADIUS_SECRET}`,
    }),
    ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
    ...SERVER_ENV,
  });
  try {
    const sessions: Session[] = [];
    if (LOAD_SESSIONS) for (const name of names) sessions.push(await signIn(server.base, name));
    const at = (index: number) => sessions[index % sessions.length]!;
    const rows: string[] = [];
    if (CALLS.includes('userinfo')) {
      const around = await bracketed(() =>
        load(server, 'POST userinfo', `${server.base}/dea/api/userinfo`, (index) => ({
          headers: at(index).headers,
          body: '{}',
        })),
      );
      rows.push(tableRow(label, around));
    }
    const create = (part: number) =>
      load(
        server,
        `POST tempPass/create, part ${part} of ${PARTS}`,
        `${server.base}/dea/api/tempPass/create`,
        (index) => ({
          headers: at(index).headers,
          body: JSON.stringify({
            count: 1,
            return: ['id', 'password'],
            attrs: { user: { id: at(index).userId }, locale: 'en' },
          }),
        }),
        Math.max(1, Math.round(SECONDS / PARTS)),
        'dea_codes_issued_total',
      );
    if (CALLS.includes('create')) {
      for (let part = 1; part <= PARTS; part += 1)
        rows.push(tableRow(label, await bracketed(() => create(part))));
    }
    if (CALLS.includes('verify')) await verifyRowsOf(label, server, seeded, radiusPort);
    if (CALLS.includes('verify-burst')) bursts.push(await verifyDuringBurst(server, label, names));
    purged.push(`${label} ${await counterOf(server, 'dea_purged_rows_total')}`);
    return rows;
  } finally {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** PostgreSQL's durability settings as the server answered them, for the figures' heading. */
let postgresDurability = '';
const durabilityNote = (): string =>
  postgresDurability === '' ? '' : `, PostgreSQL with ${postgresDurability}`;

const TABLE_HEAD = [
  '| store | call | requests/s | bare route before / after (requests/s) | of bare (their mean) | p50 | p99 | non-2xx or errors | refused in the envelope | server CPU per request |',
  '|---|---|---|---|---|---|---|---|---|---|',
];

/** Verification's table: PostgreSQL's own CPU per request too (its processes share the cores). */
const VERIFY_TABLE_HEAD = [`${TABLE_HEAD[0]} PostgreSQL CPU per request |`, `${TABLE_HEAD[1]}---|`];

/** The bare route's measurements of the run: mean, range, CPU. */
function bareLine(): string {
  const rates = bareRuns.map((run) => run.perSecond);
  const cpu = bareRuns.map((run) => run.cpuMicros);
  const mean = (values: number[]) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  return `The bare route (\`POST /bare\`, bare Fastify, JSON; ${BARE_AROUND_SECONDS} s before and after each row, ${bareRuns.length} times): ${Math.round(Math.min(...rates))} to ${Math.round(Math.max(...rates))} requests a second (mean ${Math.round(mean(rates))}), ${Math.round(mean(cpu))} µs of server CPU a request.`;
}

async function main(): Promise<void> {
  const rows = [
    // BENCH_EMBEDDED=0 leaves the embedded store out (to study PostgreSQL alone).
    ...(process.env.BENCH_EMBEDDED === '0' ? [] : await measureStore('embedded', undefined)),
  ];
  if (process.env.BENCH_POSTGRES === '1') {
    const cluster = await startPostgresCluster(PG_SETTINGS, { durable: true });
    try {
      const durability = await durabilityOf(cluster.url);
      postgresDurability = Object.entries(durability)
        .map(([name, value]) => `${name} ${value}`)
        .join(', ');
      if (Object.values(durability).some((value) => value !== 'on'))
        process.stderr.write(
          `PostgreSQL runs without durable commits (${postgresDurability}): BENCH_PG_SETTINGS?\n`,
        );
      const database = await createTestDatabase(cluster.url);
      storeCpuSeconds = () => cluster.cpuSeconds();
      rows.push(...(await measureStore('PostgreSQL', database.url)));
    } finally {
      storeCpuSeconds = () => Number.NaN;
      await cluster.stop();
    }
  }
  if (bareServer !== undefined) await stop(bareServer);
  if (bursts.length > 0) writeSection('verify-burst', burstSection());
  const heading = `\`${LONG_RUN ? `BENCH_LOAD_SECONDS=${SECONDS} ` : ''}npm run bench:load\`${process.env.BENCH_POSTGRES === '1' ? ' with `BENCH_POSTGRES=1`' : ''}${process.env.BENCH_CALLS ? ` and \`BENCH_CALLS=${process.env.BENCH_CALLS}\`` : ''}${Object.keys(SERVER_ENV).length > 0 ? ` and \`BENCH_SERVER_ENV=${process.env.BENCH_SERVER_ENV}\`` : ''}, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, ${haltPolling()}${durabilityNote()}`;
  if (verifyRows.length > 0 || pairRows.length > 0) {
    writeSection(
      'verify-load',
      [
        '<!-- verify-load start -->',
        `${heading}: for each door a pool of ${VERIFY_CODES} codes issued with tempPass/create (its own row), then each code verified twice, wrong and then right (a user's failures never reach the lock; the answers by outcome in brackets), ${CONNECTIONS} connections (RADIUS: ${RADIUS_IN_FLIGHT} requests in flight from a client in the bench process, a request unanswered after 2 s lost), ${VERIFY_USERS} users, the bare route measured right before and right after each row. The guard (ADR 0051): a verification at most the server CPU of a code's issue; a pair of issue and verification from one client at most ${PAIR_GUARD_BARE_REQUESTS} bare requests of server CPU; RADIUS at least 2,000 Access-Requests a second, none lost; on each store.`,
        '',
        ...VERIFY_TABLE_HEAD,
        ...verifyRows,
        '',
        bareLine(),
        '',
        `Pairs (the guard's measure, ADR 0051): ${PAIRS} pairs at each concurrency after ${PAIR_WARMUP} not counted, each client issuing a code on screen (tempPass/create, signed in) and then verifying it (tempPass/verify, service key), one request at a time; the server's CPU per pair from /proc, against the bare route's server CPU per request at the same concurrency, ${BARE_AROUND_SECONDS} s right before and right after.`,
        '',
        '| store | clients | pairs (verifications by outcome) | pairs/s | server CPU per pair | bare route CPU per request before / after | pair in bare requests | PostgreSQL CPU per pair |',
        '|---|---|---|---|---|---|---|---|',
        ...pairRows,
        '',
        ...verifySummaries.map((summary) => `- ${summary}`),
        '',
        'The guard:',
        '',
        '| store | check | measured | holds |',
        '|---|---|---|---|',
        ...guardRows,
        '<!-- verify-load end -->',
      ].join('\n'),
    );
  }
  if (rows.length === 0) return;
  const section = [
    `<!-- ${SECTION} start -->`,
    `${heading}, ${SECONDS} s per call (the bare route ${BARE_AROUND_SECONDS} s right before and right after each row), ${CONNECTIONS} connections (autocannon in the bench process, each server a process of its own, logging at info), ${USERS} signed-in users, codes valid ${CODE_VALIDITY_MINUTES} minute; targets: userinfo at least 25% and tempPass/create at least 8% of the bare route, flat over the run.`,
    '',
    ...TABLE_HEAD,
    ...rows,
    '',
    bareLine(),
    '',
    `Rows the scheduled retention purge removed during the run (\`dea_purged_rows_total\`): ${purged.join(', ')}.`,
    `<!-- ${SECTION} end -->`,
  ].join('\n');
  writeSection(SECTION, section);
}

/** The scenario's table: verification's p50 and p99 quiet and during the burst, against the target. */
function burstSection(): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const counts = (map: Map<string, number>) =>
    [...map.entries()]
      .sort()
      .map(([answer, count]) => `${count} × ${answer}`)
      .join(', ');
  const rows = bursts.map((burst) => {
    const quietP99 = percentileOf(burst.quiet, 0.99);
    const duringP99 = percentileOf(burst.during, 0.99);
    const target = 2 * quietP99 + 50;
    return `| ${burst.label} | ${ms(percentileOf(burst.quiet, 0.5))} / ${ms(quietP99)} (${burst.quiet.length}) | ${ms(percentileOf(burst.during, 0.5))} / ${ms(duringP99)} (${burst.during.length}) | ${ms(target)}: ${duringP99 < target ? 'met' : 'missed'} | ${counts(burst.verifyAnswers)} | ${counts(burst.signIns)} |`;
  });
  return [
    '<!-- verify-burst start -->',
    `\`BENCH_CALLS=verify-burst npm run bench:load\`${process.env.BENCH_POSTGRES === '1' ? ' with `BENCH_POSTGRES=1`' : ''}${Object.keys(SERVER_ENV).length > 0 ? ` and \`BENCH_SERVER_ENV=${process.env.BENCH_SERVER_ENV}\`` : ''}, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores${durabilityNote()}: \`/validate/check\` one request at a time (a wrong code, a user of its own each time) for ${BURST_SECONDS} s quiet, then ${BURST_SECONDS} s during waves of ${BURST_SIGN_INS} parallel sign-ins with made-up names from the same address (each wave as soon as the one before is answered) (the built server, a process of its own, password hash cost 10). Target: p99 during the burst under twice the quiet p99 plus 50 ms.`,
    '',
    '| store | verification quiet: p50 / p99 (requests) | during the burst: p50 / p99 (requests) | target | verification answers during | sign-in answers during |',
    '|---|---|---|---|---|---|',
    ...rows,
    '<!-- verify-burst end -->',
  ].join('\n');
}

/** Replaces the section between its marks in docs/benchmarks.md, or adds it before the sign-in flood. */
function writeSection(name: string, section: string): void {
  process.stdout.write(`${section}\n`);
  const file = new URL('../../../docs/benchmarks.md', import.meta.url);
  let doc = readFileSync(file, 'utf8');
  const start = doc.indexOf(`<!-- ${name} start -->`);
  const endMark = `<!-- ${name} end -->`;
  const end = doc.indexOf(endMark);
  const title =
    name === 'verify-burst'
      ? 'Verification during a burst of sign-ins'
      : name === 'verify-load'
        ? 'Verification against a bare route'
        : LONG_RUN
          ? 'A long run of tempPass/create'
          : 'Load against a bare Fastify route';
  if (start >= 0 && end > start) doc = doc.slice(0, start) + section + doc.slice(end + endMark.length);
  else doc = doc.replace('## Sign-in flood', `## ${title}\n\n${section}\n\n## Sign-in flood`);
  writeFileSync(file, doc);
}

await main();
