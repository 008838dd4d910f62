/**
 * Sign-ins per second of a directory user against Debian's slapd (StartTLS on ldap://, as the
 * product's default): the right password, through the login application's API (search, the
 * user's bind, group searches, provisioning, session), one at a time and eight at once; then the
 * same with a dead server first in DEA_LDAP_URL (a host that takes the TCP connection and never
 * answers, as a hung domain controller does): the first sign-in, which finds it dead, and every
 * sign-in after it, timed one by one, while background probes try the dead server again every
 * DEAD_SECONDS. `npx tsx apps/server/bench/directory-signin.ts` (slapd installed; no build needed).
 * Bounded: ROUNDS sign-ins per mode after a warm-up. Prints Markdown tables for docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { startServices } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { startLdapServer } from '../src/testing/ldap-server.js';
import { createLdapTree, DIRECTORY_PEOPLE } from '../src/testing/ldap-tree.js';

const ROUNDS = 200;
const WARM_UP = 20;
/** DEA_LDAP_DEAD_SERVER_SECONDS of the dead-first mode: short, so that probes run during the rounds. */
const DEAD_SECONDS = 2;
const TIMEOUT_SECONDS = 5;
const DEAD_RUN_SECONDS = 30;

const ldap = await startLdapServer();
const tree = await createLdapTree(ldap);
const dataDir = mkdtempSync(join(tmpdir(), 'dea-bench-directory-'));

/** A directory host that takes every connection and never answers. */
const silentSockets = new Set<Socket>();
const silent = createServer((socket) => {
  silentSockets.add(socket);
  socket.on('close', () => silentSockets.delete(socket));
  socket.on('error', () => undefined);
  socket.resume();
});
await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
const silentAddress = silent.address();
const silentUrl = `ldap://127.0.0.1:${typeof silentAddress === 'object' && silentAddress !== null ? silentAddress.port : 0}`;

async function productWith(settings: Record<string, string>) {
  const config = loadConfig({
    DEA_DATA_DIR: mkdtempSync(join(dataDir, 'store-')),
    DEA_LOG_LEVEL: 'silent',
    DEA_SECRET: Buffer.alloc(32, 5).toString('base64'),
    // Attempts are counted before the check: eight at once for one name would reach the default of 5.
    DEA_SIGNIN_MAX_FAILURES: '100',
    ...tree.settings,
    ...settings,
  });
  const { services } = await startServices(config);
  const app = await buildApp({ services });
  return { services, app };
}

let { services, app } = await productWith({});

let address = 0;
async function signIn(): Promise<void> {
  address += 1;
  const answer = await app.inject({
    method: 'POST',
    url: '/login/api/session',
    payload: { username: 'alice', password: DIRECTORY_PEOPLE.alice.password },
    remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
  });
  const { error } = answer.json<{ error: number }>();
  if (error !== 0) throw new Error(`sign-in failed with error ${error}: ${answer.body}`);
}

async function rate(parallel: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < ROUNDS) {
        next += 1;
        await signIn();
      }
    }),
  );
  return ROUNDS / ((performance.now() - started) / 1000);
}

async function timed(): Promise<number> {
  const started = performance.now();
  await signIn();
  return performance.now() - started;
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

try {
  for (let index = 0; index < WARM_UP; index += 1) await signIn();
  const one = await rate(1);
  const eight = await rate(8);
  console.log('| mode | sign-ins per second |');
  console.log('|---|---|');
  console.log(`| one at a time (${ROUNDS}) | ${one.toFixed(1)} |`);
  console.log(`| eight at once (${ROUNDS}) | ${eight.toFixed(1)} |`);
  await app.close();
  await services.store.close();

  // A dead server first in the list: the first sign-in waits it out once, the others go on at once.
  ({ services, app } = await productWith({
    DEA_LDAP_URL: `${silentUrl},${tree.settings.DEA_LDAP_URL}`,
    DEA_LDAP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
    DEA_LDAP_DEAD_SERVER_SECONDS: String(DEAD_SECONDS),
  }));
  const first = await timed();
  const times: number[] = [];
  const started = performance.now();
  // At least DEAD_RUN_SECONDS, so that several probes of the dead server run beside the sign-ins.
  while (times.length < ROUNDS || performance.now() - started < DEAD_RUN_SECONDS * 1000) {
    times.push(await timed());
  }
  const seconds = (performance.now() - started) / 1000;
  const probes = Math.floor(seconds / (DEAD_SECONDS + TIMEOUT_SECONDS));
  const eightStarted = performance.now();
  await rate(8);
  const eightDead = ROUNDS / ((performance.now() - eightStarted) / 1000);
  times.sort((a, b) => a - b);
  console.log('');
  console.log(
    `Dead server first in DEA_LDAP_URL (takes the connection, never answers), DEA_LDAP_TIMEOUT_SECONDS=${TIMEOUT_SECONDS}, DEA_LDAP_DEAD_SERVER_SECONDS=${DEAD_SECONDS} (at least ${probes} background probes of it, each waiting out the timeout, during ${times.length} sign-ins in ${seconds.toFixed(0)} s, ${silentSockets.size} of its connections still open at the end):`,
  );
  console.log('');
  console.log('| sign-in | time |');
  console.log('|---|---|');
  console.log(`| the first, which finds it dead | ${ms(first)} |`);
  console.log(
    `| the next ${times.length}, one at a time: p50 / p90 / p99 / slowest | ${ms(percentile(times, 0.5))} / ${ms(percentile(times, 0.9))} / ${ms(percentile(times, 0.99))} / ${ms(times[times.length - 1] ?? Number.NaN)} |`,
  );
  console.log(`| eight at once (${ROUNDS}) | ${eightDead.toFixed(1)} sign-ins per second |`);
} finally {
  await app.close();
  await services.store.close();
  for (const socket of silentSockets) socket.destroy();
  silent.close();
  await tree.dispose();
  await ldap.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
// Kept directory connections and timers of the services are not this script's to wait for.
process.exit(0);
