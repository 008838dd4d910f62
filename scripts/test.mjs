#!/usr/bin/env node
// `npm test`: builds, checks types and lint, then runs every test — unit and integration on
// both stores (Vitest; the browser and the contract with the coverage report of vitest.config.ts
// and its floor), end-to-end in Chromium (Playwright) — and closes with one summary line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const began = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
/** How long each step took, printed at the end (docs/benchmarks.md keeps the figures). */
const timings = [];

const reports = mkdtempSync(join(tmpdir(), 'dea-test-'));
const failures = [];
let passed = 0;
let failed = 0;
let skipped = 0;

function run(title, command, args, env = {}) {
  process.stdout.write(`\n=== ${title}: ${command} ${args.join(' ')}\n`);
  const started = performance.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  timings.push(`${title} ${seconds(started)}`);
  if (result.status !== 0) failures.push(title);
  return result.status === 0;
}

/**
 * Runs steps side by side (each mostly one thread: two fill this machine's two cores), each one's
 * output held and printed whole when it ends, so that their lines never interleave.
 */
async function runTogether(steps) {
  const started = performance.now();
  const results = await Promise.all(
    steps.map(
      ([title, command, args]) =>
        new Promise((resolve) => {
          const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
          const output = [];
          child.stdout.on('data', (chunk) => output.push(chunk));
          child.stderr.on('data', (chunk) => output.push(chunk));
          child.on('close', (status) => resolve({ title, command, args, status, output }));
          child.on('error', (error) =>
            resolve({ title, command, args, status: 1, output: [Buffer.from(`${error}\n`)] }),
          );
        }),
    ),
  );
  timings.push(`${steps.map(([title]) => title).join(' and ')} (together) ${seconds(started)}`);
  for (const { title, command, args, status, output } of results) {
    process.stdout.write(`\n=== ${title}: ${command} ${args.join(' ')}\n`);
    process.stdout.write(Buffer.concat(output));
    if (status !== 0) failures.push(title);
  }
}

function countVitest(file) {
  if (!existsSync(file)) return;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numTodoTests ?? 0) * 0;
  skipped += report.numPendingTests ?? 0;
}

function countPlaywright(file) {
  if (!existsSync(file)) return;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.stats?.expected ?? 0;
  failed += (report.stats?.unexpected ?? 0) + (report.stats?.flaky ?? 0);
  skipped += report.stats?.skipped ?? 0;
}

const built = run('build', 'npm', ['run', 'build']);
await runTogether([
  ['typecheck', 'npm', ['run', 'typecheck']],
  ['lint', 'npm', ['run', 'lint']],
]);

// The browser and the contract run with V8 coverage and its floor (vitest.config.ts); the server's
// suite runs on its own without it, so coverage adds nothing to its time.
const vitestRuns = [
  ['unit (browser and contract, with coverage)', ['--project', 'web', '--project', 'contract', '--coverage']],
  ['unit and integration (server)', ['--project', 'server']],
];
for (const [index, [title, selection]] of vitestRuns.entries()) {
  const vitestReport = join(reports, `vitest-${index}.json`);
  run(title, 'npx', [
    'vitest',
    'run',
    ...selection,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestReport}`,
  ]);
  countVitest(vitestReport);
}

if (built && existsSync('e2e/playwright.config.ts')) {
  const playwrightReport = join(reports, 'playwright.json');
  run('end-to-end', 'npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
  });
  countPlaywright(playwrightReport);
} else if (!built) {
  failures.push('end-to-end (not run: the build failed)');
}

if (failures.length > 0) process.stdout.write(`\nfailed steps: ${failures.join(', ')}\n`);
process.stdout.write(`\ntook ${seconds(began)}: ${timings.join(', ')}\n`);
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failures.length > 0 || failed > 0 ? 1 : 0);
