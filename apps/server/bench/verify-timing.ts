/**
 * Whether `/validate/check` tells unknown user names from known ones by its timing: the time of a
 * wrong code for a known user (a user of its own each time, so no lock shortens the path) against
 * that of a name nobody has, alternated, one at a time over HTTP, in this process, on the embedded
 * store and on a PostgreSQL started for the run.
 * `npx tsx apps/server/bench/verify-timing.ts` (BENCH_ROUNDS, default 300); prints the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow } from '@dea/contract';
import { buildApp } from '../src/app.js';
import { startServices } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { newId } from '../src/crypto/ids.js';
import { issueCode } from '../src/domain/codes/codes.js';
import { resolvePolicy } from '../src/domain/policies/policy.js';
import { createServiceKey } from '../src/domain/codes/service-keys.js';
import { createTestDatabase, startPostgresCluster } from '../src/testing/postgres-cluster.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const WARM_UP = 30;

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
  return `median ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms, mean ${mean.toFixed(2)} ms`;
}

async function measure(label: string, databaseUrl: string | undefined): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-verify-timing-'));
  const config = loadConfig({
    DEA_DATA_DIR: dataDir,
    DEA_SECRET: Buffer.alloc(32, 5).toString('base64'),
    DEA_DEMO: 'false',
    DEA_WEB_DIR: '/nonexistent',
    ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
  });
  const { services } = await startServices(config, Date.now);
  const app = await buildApp({ services });
  try {
    const { store } = services;
    const now = Date.now();
    const groupId = newId(now);
    await store.groups.create({ id: groupId, name: 'Timing', priority: 0 });
    const options = { enableECode: true, emergencyCodeDelivery: 'Display' };
    await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, options);
    const policy = resolvePolicy(options, config.codeDefaults);
    const names: string[] = [];
    for (let index = 0; index < ROUNDS + WARM_UP; index += 1) {
      const id = newId(now);
      const username = `timing-${index}`;
      await store.users.create({
        id,
        username: usernameOrThrow(username),
        passwordHash: 'x',
        fullName: username,
        locale: 'en',
        createdAt: now,
      });
      await store.groups.addMember(groupId, id);
      await issueCode(store, services.keys.codeHash, {
        userId: id,
        policy,
        channelType: null,
        clientAddress: null,
        now,
      });
      names.push(username);
    }
    const { key } = await createServiceKey(store, services.keys.serviceKey, 'timing', ['verify'], now);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/validate/check`;
    const check = async (user: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: key, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ user, pass: 'WRONG23456' }).toString(),
      });
      const { result } = (await response.json()) as { result: { value?: boolean } };
      if (result.value !== false) throw new Error(`${user}: not refused`);
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let index = 0; index < ROUNDS + WARM_UP; index += 1) {
      const knownTime = await check(names[index] ?? '');
      const unknownTime = await check(`nobody-${index}`);
      if (index >= WARM_UP) {
        known.push(knownTime);
        unknown.push(unknownTime);
      }
    }
    process.stdout.write(`${label}, ${ROUNDS} of each, alternated:\n`);
    process.stdout.write(`  known user, wrong code: ${summary(known)}\n`);
    process.stdout.write(`  unknown user name:      ${summary(unknown)}\n`);
  } finally {
    await app.close();
    await services.store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await measure('embedded', undefined);
const cluster = await startPostgresCluster();
try {
  const database = await createTestDatabase(cluster.url);
  await measure('PostgreSQL', database.url);
} finally {
  await cluster.stop();
}
