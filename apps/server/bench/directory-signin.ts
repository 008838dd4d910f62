/**
 * Sign-ins per second of a directory user against Debian's slapd (StartTLS on ldap://, as the
 * product's default): the right password, through the login application's API (search, the
 * user's bind, group searches, provisioning, session), one at a time and eight at once.
 * `npx tsx apps/server/bench/directory-signin.ts` (slapd installed; no build needed). Bounded:
 * ROUNDS sign-ins per mode after a warm-up. Prints a Markdown table for docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

const ldap = await startLdapServer();
const tree = await createLdapTree(ldap);
const dataDir = mkdtempSync(join(tmpdir(), 'dea-bench-directory-'));
const config = loadConfig({
  DEA_DATA_DIR: dataDir,
  DEA_LOG_LEVEL: 'silent',
  DEA_SECRET: Buffer.alloc(32, 5).toString('base64'),
  // Attempts are counted before the check: eight at once for one name would reach the default of 5.
  DEA_SIGNIN_MAX_FAILURES: '100',
  ...tree.settings,
});
const { services } = await startServices(config);
const app = await buildApp({ services });

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

try {
  for (let index = 0; index < WARM_UP; index += 1) await signIn();
  const one = await rate(1);
  const eight = await rate(8);
  console.log('| mode | sign-ins per second |');
  console.log('|---|---|');
  console.log(`| one at a time (${ROUNDS}) | ${one.toFixed(1)} |`);
  console.log(`| eight at once (${ROUNDS}) | ${eight.toFixed(1)} |`);
} finally {
  await app.close();
  await services.store.close();
  await tree.dispose();
  await ldap.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
// Kept directory connections and timers of the services are not this script's to wait for.
process.exit(0);
