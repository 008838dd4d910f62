#!/usr/bin/env node
// `npm test`: builds, runs every test — unit and integration on both stores (Vitest; the browser
// and the contract with the coverage report of vitest.config.ts and its floor, the server with its
// own), end-to-end in Chromium (Playwright) — checks types and lint, builds the documentation site
// and checks its links, and closes with one summary line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedWorkMilliseconds } from './machine-speed.mjs';
import { useScratchFolder } from './scratch-folder.mjs';

// The machine's speed before and after the run (scripts/machine-speed.mjs): on a shared machine the
// same run's time moves with it, so the summary line says at which speed it was measured.
const speedBefore = fixedWorkMilliseconds();
const began = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
/** How long each step took, printed at the end (docs/benchmarks.md keeps the figures). */
const timings = [];

// Every process of the run makes its scratch files in one folder, in memory where the machine
// allows (scripts/scratch-folder.mjs), removed at the end.
const scratch = useScratchFolder();
process.stdout.write(`scratch files: ${scratch.path} (${scratch.why})\n`);

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
 * Runs steps side by side, each one's output held and printed whole once all of them have ended,
 * so that their lines never interleave, with a line as each ends; the one step marked `live` (the
 * server's suite, the run's longest) writes as it goes.
 */
async function runTogether(steps) {
  const started = performance.now();
  const results = await Promise.all(
    steps.map(
      ([title, command, args, env = {}, niceness = 0, live = false]) =>
        new Promise((resolve) => {
          const stepBegan = performance.now();
          const [program, programArgs] =
            niceness === 0 ? [command, args] : ['nice', ['-n', String(niceness), command, ...args]];
          if (live) process.stdout.write(`\n=== ${title}: ${command} ${args.join(' ')}\n`);
          const child = spawn(program, programArgs, {
            stdio: ['ignore', live ? 'inherit' : 'pipe', live ? 'inherit' : 'pipe'],
            env: { ...process.env, ...env },
          });
          const output = [];
          child.stdout?.on('data', (chunk) => output.push(chunk));
          child.stderr?.on('data', (chunk) => output.push(chunk));
          // A step that could not start ends with 'error' (and may still emit 'close'): once only.
          let ended = false;
          const end = (status, held, isLive) => {
            if (ended) return;
            ended = true;
            timings.push(`${title} ${seconds(stepBegan)}`);
            if (!isLive)
              process.stdout.write(
                `--- ${title}: ${status === 0 ? 'passed' : 'failed'} (${seconds(stepBegan)})\n`,
              );
            resolve({ title, command, args, status, output: held, live: isLive });
          };
          child.on('close', (status) => end(status, output, live));
          child.on('error', (error) => end(1, [Buffer.from(`${error}\n`)], false));
        }),
    ),
  );
  timings.push(`(side by side: ${seconds(started)})`);
  for (const { title, command, args, status, output, live = false } of results) {
    if (!live) {
      process.stdout.write(`\n=== ${title}: ${command} ${args.join(' ')}\n`);
      process.stdout.write(Buffer.concat(output));
    }
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

// Each report a file of its own: Vitest's JSON for both of its runs, Playwright's for the browser.
const vitest = (selection, report) => [
  'vitest',
  'run',
  ...selection,
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
];
const browserReport = join(reports, 'vitest-browser.json');
const serverReport = join(reports, 'vitest-server.json');
const playwrightReport = join(reports, 'playwright.json');

// First, side by side: the scenarios in Chromium against the built server, the run's critical
// path (about 105 s with both cores busy), and the browser's and the contract's unit tests
// with V8 coverage and its floor (vitest.config.ts) at a lower priority (BESIDE, nice 5), so that
// the scenarios are not kept waiting by a step that ends before them anyway.
const BESIDE = 5;
await runTogether([
  [
    'unit (browser and contract, with coverage)',
    'npx',
    vitest(['--project', 'web', '--project', 'contract', '--coverage'], browserReport),
    {},
    BESIDE,
  ],
  ...(built && existsSync('e2e/playwright.config.ts')
    ? [
        [
          'end-to-end',
          'npx',
          ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json'],
          { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
        ],
      ]
    : []),
]);
if (!built) failures.push('documentation and end-to-end (not run: the build failed)');
countVitest(browserReport);
countPlaywright(playwrightReport);

// The server's suite with V8 coverage of its sources (what its worker processes run; the servers
// and `dea` processes a test starts are not counted), its summary in coverage/server/ and its own
// floor: a little under what it measured on 2026-12-07 (lines 93.7, statements 92.2, functions
// 94.4, branches 84.4), about 6% more time than without. Raise it as tests grow.
const SERVER_COVERAGE = [
  '--coverage',
  '--coverage.include=apps/server/src/**/*.ts',
  '--coverage.exclude=**/*.test.ts',
  '--coverage.exclude=apps/server/src/testing/**',
  '--coverage.reportsDirectory=coverage/server',
  '--coverage.thresholds.lines=93',
  '--coverage.thresholds.statements=91',
  '--coverage.thresholds.functions=93',
  '--coverage.thresholds.branches=83',
];
// Then the server's suite, which keeps both cores busy by itself but for the stretches where its
// workers wait on timeouts, drains and processes (docs/benchmarks.md, "The test suite"). The checks
// that are no test run beside it at the lowest priority (IN_THE_GAPS, nice 19), in those
// stretches: the type check and lint, the format, and the documentation site's build and its
// links (scripts/check-docs.mjs: the served OpenAPI document comes from the built server). Beside
// the scenarios they would slow the run's critical path.
const IN_THE_GAPS = 19;
await runTogether([
  [
    'unit and integration (server, with coverage)',
    'npx',
    vitest(['--project', 'server', ...SERVER_COVERAGE], serverReport),
    {},
    0,
    true,
  ],
  // The type check and the lint in one tool (scripts/check-code.mjs): oxlint, its typescript-go
  // for TypeScript's diagnostics and the type-aware rules, and every other rule (docs/decisions/0045).
  ['type check and lint', 'node', ['scripts/check-code.mjs'], {}, IN_THE_GAPS],
  // The format (Biome, biome.json; docs/decisions/0028): about 2 CPU-seconds.
  ['format (Biome)', 'node_modules/.bin/biome', ['format', '.'], {}, IN_THE_GAPS],
  ...(built ? [['documentation (site and links)', 'node', ['scripts/check-docs.mjs'], {}, IN_THE_GAPS]] : []),
]);
countVitest(serverReport);

if (failures.length > 0) process.stdout.write(`\nfailed steps: ${failures.join(', ')}\n`);
const took = seconds(began);
const speed = `${speedBefore} ms before, ${fixedWorkMilliseconds()} ms after`;
process.stdout.write(`\ntook ${took}: ${timings.join(', ')}\n`);
process.stdout.write(`\nthis machine's speed: the fixed work of scripts/machine-speed.mjs took ${speed}\n`);
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failures.length > 0 || failed > 0 ? 1 : 0);
