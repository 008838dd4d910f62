#!/usr/bin/env node
// How fast this machine is at this moment: the milliseconds one thread takes for a fixed piece of
// work (100,000 SHA-256 digests of 1 KiB). On the shared 2-core machine the repository is measured
// on, the same work took up to nearly twice as long from one hour to the next (210 to 387 ms on
// 2026-11-28), with nothing else of ours running, and `npm test` moved with it (327 s in one hour,
// 656 s in another for the same code: docs/benchmarks.md, "The test suite"). `npm test` and
// scripts/suite-runs.mjs print it beside their times, so that two runs compare only at about the
// same speed.
//
//   node scripts/machine-speed.mjs
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const BLOCK = Buffer.alloc(1024, 7);
const DIGESTS = 100_000;

/** Milliseconds for the fixed work, the faster of two tries (the first also warms the code). */
export function fixedWorkMilliseconds() {
  let fastest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const started = performance.now();
    for (let i = 0; i < DIGESTS; i += 1) createHash('sha256').update(BLOCK).digest();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return Math.round(fastest);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(
    `this machine's speed: ${fixedWorkMilliseconds()} ms for a fixed piece of work (lower is faster)\n`,
  );
