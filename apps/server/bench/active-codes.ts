/**
 * The active-code reads of a user who has used many codes (throughput fell as used codes
 * piled up until the purge): `codes.countActive` and `codes.listActive` for a user with 5 active
 * and 2,000 used codes, on the embedded store, or PostgreSQL with DATABASE_URL.
 * `npx tsx apps/server/bench/active-codes.ts`; prints the figures.
 */
import { usernameOrThrow } from '@dea/contract';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newId } from '../src/crypto/ids.js';
import { openStore } from '../src/store/open-store.js';

const USED = 2000;
const ACTIVE = 5;
const READS = 2000;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-bench-codes-'));
  const store = await openStore({ dataDir, databaseUrl: process.env.DATABASE_URL });
  const now = Date.now();
  const userId = newId();
  await store.users.create({
    id: userId,
    username: usernameOrThrow(`b-${userId}`),
    passwordHash: 'x',
    fullName: 'B',
    locale: 'en',
    createdAt: now,
  });
  const audit = { event: 'code.issued' as const, userId, actor: userId, clientAddress: null, details: {} };
  for (let index = 0; index < USED + ACTIVE; index += 1) {
    const id = newId();
    await store.codes.issue(
      {
        id,
        userId,
        codeHash: `h-${index}`,
        createdAt: now,
        expiresAt: now + 15 * 60_000,
        uses: 1,
        channelType: null,
      },
      USED + ACTIVE,
      audit,
    );
    if (index < USED) await store.codes.consume(id, now);
  }
  const time = async (what: string, read: () => Promise<unknown>) => {
    for (let index = 0; index < 100; index += 1) await read();
    const started = performance.now();
    for (let index = 0; index < READS; index += 1) await read();
    const each = (performance.now() - started) / READS;
    process.stdout.write(`${what}: ${(each * 1000).toFixed(0)} µs per read\n`);
  };
  process.stdout.write(`${store.kind}, a user with ${ACTIVE} active and ${USED} used codes:\n`);
  await time('countActive', () => store.codes.countActive(userId, now));
  await time('listActive', () => store.codes.listActive(userId, now));
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
