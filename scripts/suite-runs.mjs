#!/usr/bin/env node
// Runs the server suite several times in a row and prints one line per run (seconds, passed,
// failed, the load average and the machine's speed at its start, the failing tests): the measure
// of five quiet runs and three loaded in docs/benchmarks.md ("The test suite"). `--load` keeps a CPU-bound
// process on one core for the whole time.
//
//   node scripts/suite-runs.mjs [--runs 5] [--load] [--project server] [file filters...]
//
// File filters, as Vitest takes them, narrow each run to those files (the longest ones, say).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fixedWorkMilliseconds } from './machine-speed.mjs';
import { useScratchFolder } from './scratch-folder.mjs';

const { values, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '5' },
    load: { type: 'boolean', default: false },
    project: { type: 'string', default: 'server' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number above 0, not ${values.runs}`);

// The run's scratch files where `npm test` makes them (scripts/scratch-folder.mjs).
useScratchFolder();

const hog = values.load ? spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }) : undefined;
const folder = mkdtempSync(join(tmpdir(), 'dea-suite-runs-'));
const rows = [];
try {
  for (let run = 1; run <= runs; run += 1) {
    const report = join(folder, `run-${run}.json`);
    const load = loadavg()[0].toFixed(1);
    const speed = fixedWorkMilliseconds();
    const started = performance.now();
    spawnSync(
      'npx',
      [
        'vitest',
        'run',
        '--project',
        values.project,
        ...files,
        '--reporter=dot',
        '--reporter=json',
        `--outputFile.json=${report}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    const result = JSON.parse(readFileSync(report, 'utf8'));
    const failing = result.testResults.flatMap((file) =>
      file.assertionResults.filter((test) => test.status === 'failed').map((test) => test.fullName),
    );
    const row = `run ${run}${hog ? ' (loaded)' : ''}: ${seconds} s, ${result.numPassedTests} passed, ${result.numFailedTests} failed, load average ${load} and the machine's speed ${speed} ms (scripts/machine-speed.mjs) at the start${failing.length ? `; failed: ${failing.join('; ')}` : ''}`;
    rows.push(row);
    process.stdout.write(`${row}\n`);
  }
} finally {
  hog?.kill();
}
process.exit(rows.some((row) => !row.includes(' 0 failed')) ? 1 : 0);
