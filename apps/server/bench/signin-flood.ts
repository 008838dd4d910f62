/**
 * Whether a flood of sign-ins starves the rest of the server: 60 parallel sign-ins for unknown
 * user names at the default hash cost, while the page (GET /dea/) and a code verification
 * (tempPass/verify) are each called one after another; p50 and p99 of each. `npx tsx apps/server/bench/signin-flood.ts` after `npm run build`. Runs twice:
 * with the default hashing queue, and with it opened wide (as before the queue existed).
 * Bounded: one flood per run. Prints a Markdown table for docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { startServices } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { createServiceKey } from '../src/domain/codes/service-keys.js';

const FLOOD = 60;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

async function run(label: string, settings: Record<string, string>): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-flood-'));
  const config = loadConfig({
    DEA_DATA_DIR: dataDir,
    DEA_LOG_LEVEL: 'silent',
    DEA_SECRET: Buffer.alloc(32, 5).toString('base64'),
    DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '10000',
    ...settings,
  });
  const { services } = await startServices(config);
  const app = await buildApp({ services });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  await fetch(`${base}/dea/`).then((response) => response.text());
  const { key: serviceKey } = await createServiceKey(
    services.store,
    services.keys.serviceKey,
    'bench',
    ['verify'],
    Date.now(),
  );

  const outcomes = new Map<number, number>();
  const started = performance.now();
  const flood = Promise.all(
    Array.from({ length: FLOOD }, async (_, index) => {
      const response = await fetch(`${base}/login/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: `nobody-${index}`, password: 'wrong' }),
      });
      const { error } = (await response.json()) as { error: number };
      outcomes.set(error, (outcomes.get(error) ?? 0) + 1);
    }),
  );
  const page: number[] = [];
  const verify: number[] = [];
  let done = false;
  void flood.then(() => (done = true));
  const timed = async (into: number[], call: () => Promise<Response>) => {
    while (!done) {
      const t0 = performance.now();
      await (await call()).arrayBuffer();
      into.push(performance.now() - t0);
    }
  };
  await Promise.all([
    timed(page, () => fetch(`${base}/dea/`)),
    timed(verify, () =>
      fetch(`${base}/dea/api/tempPass/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceKey}` },
        body: JSON.stringify({ userId: 'nobody', code: 'ABCDEFGHJK' }),
      }),
    ),
  ]);
  await flood;
  const floodSeconds = (performance.now() - started) / 1000;
  page.sort((a, b) => a - b);
  verify.sort((a, b) => a - b);
  await app.close();
  await services.store.close();
  rmSync(dataDir, { recursive: true, force: true });
  const answered = [...outcomes].map(([error, count]) => `${count} × error ${error}`).join(', ');
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  return `| ${label} | ${ms(percentile(page, 50))} / ${ms(percentile(page, 99))} (${page.length}) | ${ms(percentile(verify, 50))} / ${ms(percentile(verify, 99))} (${verify.length}) | ${floodSeconds.toFixed(1)} s | ${answered} |`;
}

async function main(): Promise<void> {
  const rows = [
    await run('default queue (2 hashes, 16 waiting)', {}),
    await run('queue opened wide (64 hashes, 10000 waiting)', {
      DEA_PASSWORD_HASH_CONCURRENCY: '64',
      DEA_PASSWORD_HASH_QUEUE: '10000',
    }),
  ];
  process.stdout.write(
    [
      `| hashing | GET /dea/ p50 / p99 (calls) | tempPass/verify p50 / p99 (calls) | flood took | sign-in answers |`,
      '|---|---|---|---|---|',
      ...rows,
    ].join('\n') + '\n',
  );
}

await main();
