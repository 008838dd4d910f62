/**
 * What making a user name's canonical form (RFC 8265, ADR 0016) costs each door that takes a name:
 * sign-in, verification by name, /validate/check, RADIUS. One process, warmed up, per name.
 * `npx tsx apps/server/bench/canonical-username.ts` (BENCH_ROUNDS, default 200000); prints µs per name.
 */
import { canonicalUsername } from '@dea/contract';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200_000);
const NAMES = ['alice', 'ＬＡlice', 'user-nerawnzi', 'Straße-Müller', 'john.smith@example.com'];

for (const name of NAMES) {
  for (let round = 0; round < ROUNDS / 10; round += 1) canonicalUsername(name);
  const started = process.hrtime.bigint();
  for (let round = 0; round < ROUNDS; round += 1) canonicalUsername(name);
  const microseconds = Number(process.hrtime.bigint() - started) / ROUNDS / 1000;
  process.stdout.write(`${JSON.stringify(name)}: ${microseconds.toFixed(2)} µs\n`);
}
