/**
 * `dea directory sync` from the command line while the server serves, on the embedded store: a
 * throwaway slapd with `--users N` inetOrgPerson users (default 20,000), the built server on an
 * embedded store of its own, a client that signs a local user in every 100 ms and one that asks
 * /readyz every 100 ms, then the built `dea directory sync` (the first sync) and `dea directory sync
 * --full` (every user read, none changed). Prints, per step, its time and the slowest and the
 * 99th-percentile sign-in and readiness answer while it ran, as a Markdown table for
 * docs/benchmarks.md. `npx tsx apps/server/bench/sync-beside-server.ts` after `npm run build`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client } from 'ldapts';
import { createLdapTree } from '../src/testing/ldap-tree.js';
import { startLdapServer } from '../src/testing/ldap-server.js';
import { exitOf, runDea, startServerProcess } from '../src/testing/processes.js';

const { values } = parseArgs({ options: { users: { type: 'string', default: '20000' } } });
const USERS = Number(values.users);
const SECRET = Buffer.alloc(32, 8).toString('base64');

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

  const env = {
    ...tree.settings,
    DEA_DATA_DIR: join(folder, 'data'),
    DEA_SECRET: SECRET,
    DEA_LDAP_SYNC_MINUTES: '0',
    DEA_PROVISION_BATCH_SIZE: process.env.BATCH ?? '200',
    DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '10000',
  };
  process.stderr.write(`${USERS} users added\n`);
  const server = await startServerProcess(env);
  process.stderr.write(`server at ${server.base}\n`);
  const passwordFile = join(folder, 'password');
  writeFileSync(passwordFile, 'a-local-password-1', { mode: 0o600 });
  await runDea(
    [
      'user',
      'add',
      '--username',
      'local-bench',
      '--full-name',
      'Local Bench',
      '--password-file',
      passwordFile,
    ],
    env,
  );

  process.stderr.write('local user added\n');
  /** Answers' times (ms) of a client asking every 100 ms, from `start()` to `stop()`. */
  const every100ms = (ask: () => Promise<unknown>) => {
    let times: number[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        const started = performance.now();
        await ask().catch(() => undefined);
        const took = performance.now() - started;
        times.push(took);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - took)));
      }
    })();
    return {
      reset: () => (times = []),
      times: () => times,
      stop: async () => {
        running = false;
        await loop;
      },
    };
  };
  const signIns = every100ms(async () => {
    const answer = await fetch(`${server.base}/login/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'local-bench', password: 'a-local-password-1' }),
    });
    const body = (await answer.json()) as { error: number };
    if (body.error !== 0) throw new Error(`sign-in answered ${JSON.stringify(body)}`);
  });
  const ready = every100ms(() => fetch(`${server.base}/readyz`).then((answer) => answer.arrayBuffer()));
  // Warm: the first sign-ins of a new server start its hashing threads and fill its caches.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const percentile = (times: number[], p: number) =>
    [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor((times.length * p) / 100))] ?? NaN;
  const rows: string[] = [];
  for (const [step, args] of [
    ['first sync', ['directory', 'sync']],
    ['full pass, nothing changed', ['directory', 'sync', '--full']],
  ] as const) {
    signIns.reset();
    ready.reset();
    const started = performance.now();
    const run = await runDea([...args], env);
    const seconds = (performance.now() - started) / 1000;
    if (run.code !== 0) throw new Error(`dea ${args.join(' ')}: ${run.stdout}${run.stderr}`);
    const s = signIns.times();
    const r = ready.times();
    rows.push(
      `| ${step} | ${seconds.toFixed(1)} s | ${s.length} | ${Math.max(...s).toFixed(0)} ms | ${percentile(s, 99).toFixed(0)} ms | ${Math.max(...r).toFixed(0)} ms |`,
    );
    process.stderr.write(`${step}: ${run.stdout.trim().split('\n').at(-1)}\n`);
  }
  await signIns.stop();
  await ready.stop();
  const exited = exitOf(server.child);
  server.child.kill('SIGTERM');
  await exited;
  console.log(`\n${USERS} directory users, embedded store, \`dea directory sync\` beside the server\n`);
  console.log('| step | time | sign-ins | slowest sign-in | p99 sign-in | slowest /readyz |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await tree.dispose().catch(() => undefined);
  await ldap.stop();
  rmSync(folder, { recursive: true, force: true });
}
