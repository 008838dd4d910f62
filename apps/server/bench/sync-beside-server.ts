/**
 * `dea directory sync` from the command line while the server serves, on each store
 * (`--stores sqlite,postgres`; PostgreSQL a cluster of its own with durable commits): a throwaway
 * slapd with `--users N` inetOrgPerson users (default 50,000), the built server, a client that
 * signs a directory user in every 100 ms (the directory checks the password: the issue's sign-in),
 * one that signs a local user in every 100 ms (the server hashes the password), one that verifies a code every 100 ms (a code issued on
 * screen to that user, then `/dea/api/tempPass/verify` with a service key: the verification's time
 * is measured, not the issue's) and one that asks /readyz every 100 ms; first 10 s without a sync
 * (the usual latency), then the built `dea directory sync` (the first sync) and `dea directory
 * sync --full` (every user read, none changed). The password hash is the product's default
 * (DEA_PASSWORD_HASH_COST; `--hash-cost N` sets another). Prints, per store and step, its time,
 * the slowest and 99th-percentile sign-ins, verification and readiness answer while it ran, and
 * the server's longest event-loop wait, as a Markdown table for docs/benchmarks.md. Target: the
 * slowest sign-in and verification at most 300 ms (a local sign-in's floor is its password hash:
 * at the product's cost, about 0.4 s on a 2-core machine). `npm run bench:sync-beside-server` (`npx tsx
 * apps/server/bench/sync-beside-server.ts`) after `npm run build`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client } from 'ldapts';
import { XSRF_COOKIE_NAME, XSRF_HEADER_NAME } from '@dea/contract';
import { DEFAULT_PASSWORD_HASH_COST } from '../src/domain/page/sign-in-settings.js';
import { createLdapTree, DIRECTORY_PEOPLE } from '../src/testing/ldap-tree.js';
import { startLdapServer } from '../src/testing/ldap-server.js';
import { createTestDatabase, startPostgresCluster } from '../src/testing/postgres-cluster.js';
import { exitOf, runDea, startServerProcess } from '../src/testing/processes.js';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '50000' },
    // The sign-in's password hash as the product sets it (DEA_PASSWORD_HASH_COST), or cheaper.
    'hash-cost': { type: 'string', default: String(DEFAULT_PASSWORD_HASH_COST) },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
});
const USERS = Number(values.users);
const STORES = (values.stores ?? '').split(',').filter((kind) => kind === 'sqlite' || kind === 'postgres');
const SECRET = Buffer.alloc(32, 8).toString('base64');
/** How long the clients are measured before any sync: their usual latency. */
const QUIET_MS = 10_000;
const PASSWORD = 'a-local-password-1';

/** Answers' times (ms) of a client asking every 100 ms, from `reset()` on. */
function every100ms(ask: () => Promise<number | undefined>) {
  let times: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      // `ask` may answer the time of the part that is measured (a verification without its issue).
      const took = await ask()
        .then((measured) => measured ?? performance.now() - started)
        .catch((error: unknown) => {
          failures += 1;
          if (failures <= 3) process.stderr.write(`  ${String(error)}\n`);
          return performance.now() - started;
        });
      times.push(took);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (performance.now() - started))));
    }
  })();
  return {
    reset: () => {
      times = [];
      failures = 0;
    },
    times: () => times,
    failures: () => failures,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

const percentile = (times: number[], p: number) =>
  [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor((times.length * p) / 100))] ?? NaN;
const slowest = (times: number[]) => Math.max(...times).toFixed(0);

const ldap = await startLdapServer();
const tree = await createLdapTree(ldap);
const folder = mkdtempSync(join(tmpdir(), 'dea-sync-beside-bench-'));
try {
  const clients = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const client = new Client({ url: ldap.url });
      await client.bind(ldap.adminDn, ldap.adminPassword);
      return client;
    }),
  );
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < USERS) {
        const index = next;
        next += 1;
        await client.add(`uid=bench${index},ou=people,${tree.baseDn}`, {
          objectClass: ['inetOrgPerson'],
          uid: `bench${index}`,
          cn: `Bench Person ${index}`,
          sn: `Person ${index}`,
          mail: `bench${index}@example.com`,
        });
      }
    }),
  );
  await Promise.all(clients.map((client) => client.unbind()));

  process.stderr.write(`${USERS} users added\n`);
  const rows: string[] = [];
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | undefined;
  try {
    for (const kind of STORES) {
      let databaseUrl: string | undefined;
      if (kind === 'postgres') {
        cluster ??= await startPostgresCluster({}, { durable: true });
        databaseUrl = (await createTestDatabase(cluster.url)).url;
      }
      const env = {
        ...tree.settings,
        DEA_DATA_DIR: join(folder, `data-${kind}`),
        ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
        DEA_SECRET: SECRET,
        DEA_LDAP_SYNC_MINUTES: '0',
        DEA_PASSWORD_HASH_COST: values['hash-cost'] ?? String(DEFAULT_PASSWORD_HASH_COST),
        DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '10000',
        // The event loop's longest wait, read from /metrics.
        DEA_PUBLIC_METRICS: 'true',
      };
      rows.push(...(await besideServer(kind === 'sqlite' ? 'embedded' : 'PostgreSQL', env)));
    }
  } finally {
    await cluster?.stop();
  }
  console.log(
    `\n${USERS} directory users, \`dea directory sync\` beside the serving server, password hash cost ${values['hash-cost']}\n`,
  );
  console.log(
    "| store | step | time | directory sign-ins | slowest / p99 | local sign-ins | slowest / p99 | verifications | slowest / p99 | slowest /readyz | server's event loop, longest wait |",
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await tree.dispose().catch(() => undefined);
  await ldap.stop();
  rmSync(folder, { recursive: true, force: true });
}

/**
 * The server's longest event-loop delay since the last ask (prom-client's gauge, whose histogram
 * each scrape of /metrics resets): how long the server's own work kept a request waiting.
 */
async function eventLoopMax(base: string): Promise<string> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = /^dea_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  return value === undefined ? '–' : `${(Number(value) * 1000).toFixed(0)} ms`;
}

/** One store: the server, its clients every 100 ms, the two syncs from the command line. */
async function besideServer(label: string, env: Record<string, string>): Promise<string[]> {
  // BENCH_SERVER_NODE_OPTIONS: the server's NODE_OPTIONS (a --require of a profiler, say).
  const nodeOptions = process.env.BENCH_SERVER_NODE_OPTIONS;
  const server = await startServerProcess(
    nodeOptions === undefined
      ? env
      : { ...env, NODE_OPTIONS: nodeOptions, PROF_DIR: process.env.PROF_DIR ?? '' },
  );
  process.stderr.write(`${label}: server at ${server.base}\n`);
  const passwordFile = join(folder, 'password');
  writeFileSync(passwordFile, PASSWORD, { mode: 0o600 });
  const dea = async (...args: string[]) => {
    const run = await runDea(args, env);
    if (run.code !== 0) throw new Error(`dea ${args.join(' ')}: ${run.stdout}${run.stderr}`);
    return run.stdout.trim();
  };
  await dea(
    'user',
    'add',
    '--username',
    'local-bench',
    '--full-name',
    'Local Bench',
    '--password-file',
    passwordFile,
  );
  await dea('group', 'add', '--name', 'Bench', '--priority', '10');
  await dea(
    'group',
    'policy',
    'set',
    'Bench',
    '--enable-ecode',
    'true',
    '--delivery',
    'Display',
    '--max-unused-codes',
    '100',
    '--code-validity-minutes',
    '30',
  );
  await dea('group', 'add-member', 'Bench', 'local-bench');
  // Printed alone on standard output, the only time it is shown.
  const serviceKey = await dea('service-key', 'create', 'bench', '--scope', 'verify');

  const signIn = async (username = 'local-bench', password = PASSWORD) => {
    const answer = await fetch(`${server.base}/login/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    const body = (await answer.json()) as { error: number };
    if (body.error !== 0) throw new Error(`sign-in answered ${JSON.stringify(body)}`);
    return answer;
  };
  // The verifying client's session, to issue the codes it verifies.
  const session = await signIn();
  const cookies = session.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const xsrf = cookies.find((cookie) => cookie.startsWith(`${XSRF_COOKIE_NAME}=`))?.split('=')[1] ?? '';
  const headers = {
    'content-type': 'application/json',
    cookie: cookies.join('; '),
    [XSRF_HEADER_NAME]: xsrf,
  };
  const info = (await (
    await fetch(`${server.base}/dea/api/userinfo`, { method: 'POST', headers, body: '{}' })
  ).json()) as { userId?: string };
  const userId = info.userId;
  if (userId === undefined) throw new Error('userinfo answered no user');

  const signIns = every100ms(async () => {
    await signIn();
    return undefined;
  });
  const { bob } = DIRECTORY_PEOPLE;
  const directorySignIns = every100ms(async () => {
    await signIn(bob.uid, bob.password);
    return undefined;
  });
  const verifications = every100ms(async () => {
    const issued = await fetch(`${server.base}/dea/api/tempPass/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        count: 1,
        return: ['id', 'password'],
        attrs: { user: { id: userId }, locale: 'en' },
      }),
    });
    const code = ((await issued.json()) as { result?: { rows?: { password?: string }[] } }).result?.rows?.[0]
      ?.password;
    if (code === undefined) throw new Error(`tempPass/create answered ${issued.status} without a code`);
    const started = performance.now();
    const verified = await fetch(`${server.base}/dea/api/tempPass/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceKey}` },
      body: JSON.stringify({ userId, code }),
    });
    const body = (await verified.json()) as { result?: { valid?: boolean } };
    const took = performance.now() - started;
    if (body.result?.valid !== true) throw new Error(`tempPass/verify answered ${JSON.stringify(body)}`);
    return took;
  });
  const ready = every100ms(async () => {
    await (await fetch(`${server.base}/readyz`)).arrayBuffer();
    return undefined;
  });
  // Warm: the first sign-ins of a new server start its hashing threads and fill its caches.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const rows: string[] = [];
  for (const [step, args] of [
    ['no sync (the usual latency)', []],
    ['first sync', ['directory', 'sync']],
    ['full pass, nothing changed', ['directory', 'sync', '--full']],
  ] as const) {
    for (const client of [directorySignIns, signIns, verifications, ready]) client.reset();
    await eventLoopMax(server.base);
    const started = performance.now();
    const summary =
      args.length === 0
        ? await new Promise<string>((resolve) => setTimeout(() => resolve('no sync'), QUIET_MS))
        : await dea(...args);
    const seconds = (performance.now() - started) / 1000;
    const blocked = await eventLoopMax(server.base);
    const measuredClients = [directorySignIns, signIns, verifications].map(
      (client) =>
        `${client.times().length}${client.failures() ? ` (${client.failures()} failed)` : ''} | ${slowest(client.times())} / ${percentile(client.times(), 99).toFixed(0)} ms`,
    );
    rows.push(
      `| ${label} | ${step} | ${seconds.toFixed(1)} s | ${measuredClients.join(' | ')} | ${slowest(ready.times())} ms | ${blocked} |`,
    );
    process.stderr.write(`${label}, ${step}: ${summary.split('\n').at(-1)}\n${rows.at(-1)}\n`);
  }
  for (const client of [directorySignIns, signIns, verifications, ready]) await client.stop();
  const exited = exitOf(server.child);
  server.child.kill('SIGTERM');
  await exited;
  return rows;
}
