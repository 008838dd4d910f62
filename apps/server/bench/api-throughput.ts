/**
 * Throughput and latency of the server's hot paths over real HTTP on loopback:
 * `npx tsx apps/server/bench/api-throughput.ts` (embedded store), or with
 * DATABASE_URL=postgres://... for PostgreSQL. Bounded: a fixed number of requests, then it stops.
 * Writes its figures into docs/benchmarks.md between the server-bench markers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  PAGE_CALLS,
  PAGE_STARTUP_ELEMENT_ID,
  POLICY_CATEGORY_SELF_SERVICE,
  usernameOrThrow,
} from '@dea/contract';
import { buildApp } from '../src/app.js';
import { startServices } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { newId } from '../src/crypto/ids.js';
import { hashPassword } from '../src/crypto/password-hash.js';

const CONCURRENCY = 16;
const REQUESTS = 2000;
const USERS = 40;

interface Figures {
  name: string;
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

async function measure(
  name: string,
  count: number,
  call: (index: number) => Promise<void>,
): Promise<Figures> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const index = next++;
        const t0 = performance.now();
        await call(index);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { name, requests: count, seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-bench-'));
  const config = loadConfig({
    ...process.env,
    DEA_DATA_DIR: dataDir,
    DEA_WEB_DIR: fileURLToPath(new URL('../../web/dist', import.meta.url)),
    DEA_DEMO: 'false',
    DEA_LOG_LEVEL: 'silent',
    DEA_PASSWORD_HASH_COST: '10',
    DEA_SECRET: Buffer.alloc(32, 3).toString('base64'),
  });
  const { services } = await startServices(config);
  const app = await buildApp({ services });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const groupId = newId();
  await services.store.groups.create({ id: groupId, name: `bench-${groupId}`, priority: 0 });
  await services.store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, {
    enableECode: true,
    emergencyCodeDelivery: 'Display',
    maxUnusedCodes: 100,
  });
  const passwordHash = await hashPassword('bench', 10);
  const sessions: { userId: string; headers: Record<string, string> }[] = [];
  for (let index = 0; index < USERS; index += 1) {
    const id = newId();
    const username = `bench-${id}`;
    await services.store.users.create({
      id,
      username: usernameOrThrow(username),
      passwordHash,
      fullName: username,
      locale: 'en',
      createdAt: Date.now(),
    });
    await services.store.groups.addMember(groupId, id);
    const response = await fetch(`${base}/login/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: 'bench' }),
    });
    const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
    const xsrf =
      cookies.find((cookie) => cookie.startsWith('XSRF-TOKEN='))?.slice('XSRF-TOKEN='.length) ?? '';
    sessions.push({
      userId: id,
      headers: { 'content-type': 'application/json', cookie: cookies.join('; '), 'x-xsrf-token': xsrf },
    });
  }

  const post = async (path: string, session: (typeof sessions)[number], body: unknown): Promise<void> => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: session.headers,
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { error?: number };
    if (!response.ok || (json.error !== undefined && json.error !== 0))
      throw new Error(`${path}: ${JSON.stringify(json)}`);
  };

  const results = [
    await measure('POST userinfo (session lookup)', REQUESTS, (i) =>
      post('/dea/api/userinfo', sessions[i % USERS]!, {}),
    ),
    await measure('POST user/getPolicy', REQUESTS, (i) => {
      const session = sessions[i % USERS]!;
      return post('/dea/api/user/getPolicy', session, {
        user: { id: session.userId },
        category: { name: POLICY_CATEGORY_SELF_SERVICE },
        return: ['options'],
      });
    }),
    await measure('POST tempPass/create (locked count, insert, audit)', USERS * 50, (i) => {
      const session = sessions[i % USERS]!;
      return post('/dea/api/tempPass/create', session, {
        count: 1,
        return: ['id', 'password'],
        attrs: { user: { id: session.userId }, locale: 'en' },
      });
    }),
    await measure('GET message?lang=de (catalog)', REQUESTS, async () => {
      const response = await fetch(`${base}/dea/api/message?lang=de`);
      await response.arrayBuffer();
    }),
    // The page's HTML with the answers of its startup calls (ADR 0013), against those calls made
    // one after another as the page made them before.
    await measure('GET /dea/ signed in (HTML with the startup answers, brotli)', REQUESTS, async (i) => {
      const response = await fetch(`${base}/dea/`, {
        headers: { cookie: sessions[i % USERS]!.headers.cookie ?? '', 'accept-encoding': 'br' },
      });
      const html = await response.text();
      if (!html.includes(`id="${PAGE_STARTUP_ELEMENT_ID}"`))
        throw new Error('no startup answers in the page');
    }),
    await measure('the 6 startup calls that answers, one after another', REQUESTS / 4, async (i) => {
      const session = sessions[i % USERS]!;
      for (const call of [
        PAGE_CALLS.userInfo(),
        PAGE_CALLS.languageList(),
        PAGE_CALLS.userLocale(session.userId),
        PAGE_CALLS.messages('messages'),
        PAGE_CALLS.branding(),
        PAGE_CALLS.policy(session.userId),
      ]) {
        const response = await fetch(`${base}/dea/api/${call.path}`, {
          method: call.method,
          headers: session.headers,
          ...(call.method === 'POST' && { body: JSON.stringify(call.body) }),
        });
        if (!response.ok) throw new Error(`${call.path}: ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  ];
  await app.close();
  await services.store.close();
  rmSync(dataDir, { recursive: true, force: true });

  const store = config.databaseUrl ? 'PostgreSQL' : 'embedded SQLite';
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.requests} | ${Math.round(r.requests / r.seconds)} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms |`,
  );
  const section = [
    `### ${store}`,
    '',
    `\`npx tsx apps/server/bench/api-throughput.ts\`${config.databaseUrl ? ' with `DATABASE_URL`' : ''}, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, one instance, ${CONCURRENCY} concurrent clients on loopback, ${USERS} signed-in users.`,
    '',
    '| call | requests | requests/s | p50 | p99 |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  process.stdout.write(`${section}\n`);

  const file = new URL('../../../docs/benchmarks.md', import.meta.url);
  const marker = (edge: string) => `<!-- server-bench ${store} ${edge} -->`;
  let doc = readFileSync(file, 'utf8');
  const start = doc.indexOf(marker('start'));
  const end = doc.indexOf(marker('end'));
  const block = `${marker('start')}\n${section}${marker('end')}`;
  if (start >= 0 && end > start) doc = doc.slice(0, start) + block + doc.slice(end + marker('end').length);
  else {
    if (!doc.includes('## Server'))
      doc += '\n## Server\n\nHot paths over real HTTP; the figures include the client in the same process.\n';
    doc += `\n${block}\n`;
  }
  writeFileSync(file, doc);
}

await main();
