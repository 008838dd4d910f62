/**
 * Password hashing on this machine: scrypt at the product's default cost against Argon2id at
 * OWASP's parameters (Password Storage Cheat Sheet), one hash alone and as many at once as there
 * are cores: milliseconds per hash, sign-ins per second per core, memory per hash.
 * `npx tsx apps/server/bench/password-hashing.ts`; prints a Markdown table (ADR 0014).
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { hash as argon2 } from '@node-rs/argon2';

/** @node-rs/argon2's Algorithm.Argon2id (a const enum, which this build cannot import). */
const ARGON2ID = 2;
import { ScryptWorkers } from '../src/crypto/scrypt-workers.js';
import { DEFAULT_PASSWORD_HASH_COST } from '../src/domain/page/sign-in-settings.js';

const ROUNDS = 12;
const CORES = cpus().length;

interface Candidate {
  name: string;
  memoryMiB: number;
  hash: () => Promise<unknown>;
}

async function measure(candidate: Candidate): Promise<string> {
  await candidate.hash();
  let started = performance.now();
  for (let round = 0; round < ROUNDS; round += 1) await candidate.hash();
  const alone = (performance.now() - started) / ROUNDS;
  started = performance.now();
  await Promise.all(
    Array.from({ length: CORES }, async () => {
      for (let round = 0; round < ROUNDS; round += 1) await candidate.hash();
    }),
  );
  const perSecond = (CORES * ROUNDS) / ((performance.now() - started) / 1000);
  return `| ${candidate.name} | ${candidate.memoryMiB} MiB | ${alone.toFixed(0)} ms | ${perSecond.toFixed(1)} | ${(perSecond / CORES).toFixed(1)} |`;
}

async function main(): Promise<void> {
  const workers = new ScryptWorkers(CORES);
  const logN = DEFAULT_PASSWORD_HASH_COST;
  const scrypt = (n: number): Candidate => ({
    name: `scrypt N=2^${n}, r=8, p=1${n === logN ? ' (the default)' : ''}`,
    memoryMiB: (128 * 2 ** n * 8) / 2 ** 20,
    hash: () =>
      workers.derive('correct horse battery', randomBytes(16), 32, {
        N: 2 ** n,
        r: 8,
        p: 1,
        maxmem: 256 * 2 ** n * 8 + 2 ** 20,
      }),
  });
  const argon2id = (memoryKiB: number, timeCost: number): Candidate => ({
    name: `Argon2id m=${memoryKiB / 1024} MiB, t=${timeCost}, p=1`,
    memoryMiB: memoryKiB / 1024,
    hash: () =>
      argon2('correct horse battery', {
        algorithm: ARGON2ID,
        memoryCost: memoryKiB,
        timeCost,
        parallelism: 1,
      }),
  });
  const rows: string[] = [];
  for (const candidate of [scrypt(logN), scrypt(16), argon2id(19 * 1024, 2), argon2id(46 * 1024, 1)])
    rows.push(await measure(candidate));
  await workers.close();
  process.stdout.write(
    [
      `${CORES} cores, ${ROUNDS} hashes alone, then ${ROUNDS} on each core at once:`,
      '',
      '| hash | memory per hash | one hash | hashes per second (all cores) | per core |',
      '|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
