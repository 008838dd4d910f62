/**
 * Throughput of the product's hot calls against a bare Fastify JSON POST route, in the same run, on
 * this machine (issue 16): `npm run bench:load` after `npm run build`, embedded store; with
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
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  POLICY_CATEGORY_SELF_SERVICE,
  XSRF_COOKIE_NAME,
  XSRF_HEADER_NAME,
  usernameOrThrow,
} from '@dea/contract';
import { newId } from '../src/crypto/ids.js';
import { hashPassword } from '../src/crypto/password-hash.js';
import { openStore } from '../src/store/open-store.js';
import { createTestDatabase, durabilityOf, startPostgresCluster } from '../src/testing/postgres-cluster.js';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const CONNECTIONS = 32;
// BENCH_CALLS=userinfo leaves tempPass/create out (to profile one call alone).
const CALLS = (process.env.BENCH_CALLS ?? 'userinfo,create,verify-burst').split(',');
// The scenario alone needs neither sessions nor a user per code.
const BURST_ONLY = CALLS.length === 1 && CALLS[0] === 'verify-burst';
const BURST_SIGN_INS = 60;
const BURST_SECONDS = Number(process.env.BENCH_BURST_SECONDS ?? 10);
// Codes of the run are valid for a minute (then they pile up as expired rows until the purge, as
// used ones do). With this many users none reaches the policy's 100 unused codes in a minute at
// up to 16,000 creations a second; with 2,500, a long run at 5,000 a second turned most creations
// after its first minute into refusals (error 148).
const USERS = BURST_ONLY ? 2_000 : 10_000;
const CODE_VALIDITY_MINUTES = 1;
// A long run (BENCH_LOAD_SECONDS=600) shows whether tempPass/create stays flat as codes pile up;
// it runs in more parts and is written to a section of its own.
const LONG_RUN = SECONDS >= 300;
const PARTS = Number(process.env.BENCH_PARTS ?? (LONG_RUN ? 10 : 3));
const SECTION = LONG_RUN ? 'load-long' : 'load-bench';
// The bare route is the yardstick; its figure settles within seconds.
const BARE_SECONDS = Math.min(SECONDS, 30);
const serverPackage = dirname(dirname(fileURLToPath(import.meta.url)));
const SECRET = Buffer.alloc(32, 4).toString('base64');
// BENCH_SERVER_ENV=NAME=value,... passes further settings to the server (to compare them);
// BENCH_PG_SETTINGS=name=value,... sets PostgreSQL. Read before anything starts: a bad entry stops the run at once.
const SERVER_ENV = settingsOf('BENCH_SERVER_ENV');
const PG_SETTINGS = settingsOf('BENCH_PG_SETTINGS');

interface Running {
  child: ChildProcess;
  base: string;
}

/** A process that prints the URL it listens on; resolved with its base URL. */
function startProcess(args: string[], env: Record<string, string>, pattern: RegExp): Promise<Running> {
  const child = spawn(process.execPath, args, {
    cwd: serverPackage,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match?.[1]) {
        // From now on its output goes nowhere, as a service's log would go to a collector.
        child.stdout.removeAllListeners('data').resume();
        child.stderr.removeAllListeners('data').resume();
        resolve({ child, base: match[1].replace('localhost', '127.0.0.1').replace(/\/dea\/$/, '') });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
}

const BARE_SERVER = `
import Fastify from 'fastify';
const app = Fastify();
app.post('/bare', async () => ({ ok: true }));
await app.listen({ port: 0, host: '127.0.0.1' });
console.log('bare: http://127.0.0.1:' + app.server.address().port + '/');
`;

async function stop(running: Running): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  await exited;
}

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
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds the process has used so far (Linux: /proc/<pid>/stat, user + system). */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

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
): Promise<Figures> {
  let index = 0;
  const issuedBefore = issuedCounter === undefined ? 0 : await counterOf(server, issuedCounter);
  const cpuBefore = cpuSecondsOf(server.child.pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', ...request((index += 1)) }) }],
  });
  const cpuMicros = ((cpuSecondsOf(server.child.pid) - cpuBefore) * 1e6) / Math.max(1, result.requests.total);
  const ok = result.requests.total - result.non2xx;
  const issued = issuedCounter === undefined ? ok : (await counterOf(server, issuedCounter)) - issuedBefore;
  const missing = ok - issued;
  return {
    name,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    refused: Number.isNaN(missing) || missing > CONNECTIONS ? missing : 0,
    cpuMicros,
  };
}

/** Users in a group whose policy shows codes on screen and lets each hold 100 unused codes. */
async function seed(dataDir: string, databaseUrl: string | undefined): Promise<string[]> {
  const store = await openStore({ dataDir, databaseUrl });
  const now = Date.now();
  const groupId = newId(now);
  await store.groups.create({ id: groupId, name: 'Load', priority: 0 });
  await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, {
    enableECode: true,
    emergencyCodeDelivery: 'Display',
    maxUnusedCodes: 100,
    codeValidityMinutes: CODE_VALIDITY_MINUTES,
  });
  const passwordHash = await hashPassword('load password', 10);
  const names: string[] = [];
  for (let index = 0; index < USERS; index += 1) {
    const id = newId(now);
    const username = `load-${index}`;
    await store.users.create({
      id,
      username: usernameOrThrow(username),
      passwordHash,
      fullName: username,
      locale: 'en',
      createdAt: now,
    });
    await store.groups.addMember(groupId, id);
    names.push(username);
  }
  await store.close();
  return names;
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

async function measureStore(
  label: string,
  databaseUrl: string | undefined,
  bare: Figures,
): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-load-'));
  const names = await seed(dataDir, databaseUrl);
  const server = await startProcess(
    [
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      'dist/server.js',
    ],
    {
      DEA_DATA_DIR: dataDir,
      DEA_SECRET: SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      DEA_LOG_LEVEL: 'info',
      DEA_PASSWORD_HASH_COST: '10',
      DEA_SHUTDOWN_DRAIN_SECONDS: '0',
      DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '10000',
      // The bench reads dea_purged_rows_total on the port it loads.
      DEA_PUBLIC_METRICS: 'true',
      // The scenario's verifications come from this address, without a service key.
      DEA_VALIDATE_CHECK_CLIENTS: '127.0.0.1',
      ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
      ...SERVER_ENV,
    },
    /running: (http:\/\/\S+?\/dea\/)/,
  );
  try {
    const sessions: Session[] = [];
    if (!BURST_ONLY) for (const name of names) sessions.push(await signIn(server.base, name));
    const at = (index: number) => sessions[index % sessions.length]!;
    const row = (figures: Figures) =>
      `| ${label} | ${figures.name} | ${Math.round(figures.perSecond)} | ${((100 * figures.perSecond) / bare.perSecond).toFixed(1)}% | ${figures.p50} ms | ${figures.p99} ms | ${figures.errors} | ${figures.refused} | ${Math.round(figures.cpuMicros)} µs |`;
    const userinfo = CALLS.includes('userinfo')
      ? await load(server, 'POST userinfo', `${server.base}/dea/api/userinfo`, (index) => ({
          headers: at(index).headers,
          body: '{}',
        }))
      : undefined;
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
    const rows = userinfo === undefined ? [] : [row(userinfo)];
    if (CALLS.includes('create')) {
      for (let part = 1; part <= PARTS; part += 1) rows.push(row(await create(part)));
    }
    if (CALLS.includes('verify-burst')) bursts.push(await verifyDuringBurst(server, label, names));
    purged.push(`${label} ${await counterOf(server, 'dea_purged_rows_total')}`);
    return rows;
  } finally {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The yardstick of the throughput table (not measured for the burst scenario alone). */
async function bareRoute(): Promise<Figures> {
  if (BURST_ONLY)
    return { name: 'not measured', perSecond: 1, p50: 0, p99: 0, errors: 0, refused: 0, cpuMicros: 0 };
  const bareServer = await startProcess(
    ['--input-type=module', '-e', BARE_SERVER],
    {},
    /bare: (http:\/\/\S+)/,
  );
  const bare = await load(
    bareServer,
    'POST /bare (bare Fastify, JSON)',
    `${bareServer.base}bare`,
    () => ({ headers: { 'content-type': 'application/json' }, body: '{}' }),
    BARE_SECONDS,
  );
  await stop(bareServer);
  return bare;
}

/** PostgreSQL's durability settings as the server answered them, for the figures' heading. */
let postgresDurability = '';
const durabilityNote = (): string =>
  postgresDurability === '' ? '' : `, PostgreSQL with ${postgresDurability}`;

async function main(): Promise<void> {
  const bare = await bareRoute();
  const rows = [
    `| | ${bare.name} | ${Math.round(bare.perSecond)} | 100% | ${bare.p50} ms | ${bare.p99} ms | ${bare.errors} | ${bare.refused} | ${Math.round(bare.cpuMicros)} µs |`,
    // BENCH_EMBEDDED=0 leaves the embedded store out (to study PostgreSQL alone).
    ...(process.env.BENCH_EMBEDDED === '0' ? [] : await measureStore('embedded', undefined, bare)),
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
      rows.push(...(await measureStore('PostgreSQL', database.url, bare)));
    } finally {
      await cluster.stop();
    }
  }
  if (bursts.length > 0) writeSection('verify-burst', burstSection());
  if (BURST_ONLY) return;
  const section = [
    `<!-- ${SECTION} start -->`,
    `\`${LONG_RUN ? `BENCH_LOAD_SECONDS=${SECONDS} ` : ''}npm run bench:load\`${process.env.BENCH_POSTGRES === '1' ? ' with `BENCH_POSTGRES=1`' : ''}${process.env.BENCH_CALLS ? ` and \`BENCH_CALLS=${process.env.BENCH_CALLS}\`` : ''}, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores${durabilityNote()}, ${SECONDS} s per call (the bare route ${BARE_SECONDS} s), ${CONNECTIONS} connections (autocannon in the bench process, each server a process of its own, logging at info), ${USERS} signed-in users, codes valid ${CODE_VALIDITY_MINUTES} minute; targets: userinfo at least 25% and tempPass/create at least 8% of the bare route, flat over the run.`,
    '',
    '| store | call | requests/s | of bare | p50 | p99 | non-2xx or errors | refused in the envelope | server CPU per request |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
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
      : LONG_RUN
        ? 'A long run of tempPass/create'
        : 'Load against a bare Fastify route';
  if (start >= 0 && end > start) doc = doc.slice(0, start) + section + doc.slice(end + endMark.length);
  else doc = doc.replace('## Sign-in flood', `## ${title}\n\n${section}\n\n## Sign-in flood`);
  writeFileSync(file, doc);
}

await main();
