#!/usr/bin/env node
// `npm test`: builds, checks types and lint, builds the documentation site and checks its links,
// then runs every test — unit and integration on both stores (Vitest; the browser and the
// contract with the coverage report of vitest.config.ts and its floor), end-to-end in Chromium
// (Playwright) — and closes with one summary line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useScratchFolder } from './scratch-folder.mjs';

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

/** `command` under `nice -n niceness` (none at 0). */
const niced = (command, args, niceness) =>
  niceness === 0 ? [command, args] : ['nice', ['-n', String(niceness), command, ...args]];

/**
 * Starts a step whose output is held and printed whole by `report` (steps side by side: each mostly
 * one thread, two fill this machine's two cores), so that their lines never interleave.
 */
function startStep([title, command, args, env = {}, niceness = 0]) {
  return new Promise((resolve) => {
    const stepBegan = performance.now();
    const [program, programArgs] = niced(command, args, niceness);
    const child = spawn(program, programArgs, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (status) => {
      timings.push(`${title} ${seconds(stepBegan)}`);
      resolve({ title, command, args, status, output });
    });
    child.on('error', (error) =>
      resolve({ title, command, args, status: 1, output: [Buffer.from(`${error}\n`)] }),
    );
  });
}

function report({ title, command, args, status, output }) {
  process.stdout.write(`\n=== ${title}: ${command} ${args.join(' ')}\n`);
  process.stdout.write(Buffer.concat(output));
  if (status !== 0) failures.push(title);
}

/** A step whose output goes straight to this one's, without blocking the steps still running. */
function runLive(title, command, args, niceness = 0) {
  process.stdout.write(`\n=== ${title}: ${command} ${args.join(' ')}\n`);
  const started = performance.now();
  const [program, programArgs] = niced(command, args, niceness);
  return new Promise((resolve) => {
    const child = spawn(program, programArgs, { stdio: 'inherit' });
    const done = (status) => {
      timings.push(`${title} ${seconds(started)}`);
      if (status !== 0) failures.push(title);
      resolve(status === 0);
    };
    child.on('close', done);
    child.on('error', () => done(1));
  });
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

// What needs a core at times but mostly waits (the end-to-end scenarios keep one core busy on
// average) runs side by side: the type check and lint, the format, the documentation site's build
// and its links (scripts/check-docs.mjs: the served OpenAPI document comes from the built server),
// the browser's and the contract's unit tests with V8 coverage and its floor (vitest.config.ts),
// and the scenarios in Chromium against the built server. The server's suite, which keeps both
// cores busy by itself, runs after them (beside the scenarios' end: below). The scenarios are the phase's longest step and the type
// check and lint its busiest at its start (both cores, about half a minute): the others run at a
// lower priority (BESIDE, nice 5) so that these two are not kept waiting by steps that would end
// before them anyway (docs/benchmarks.md, "The type check and the type-aware rules in
// typescript-go").
const BESIDE = 5;
const sideStarted = performance.now();
const side = [
  // The type check and the lint, each half at once (scripts/check-code.mjs): oxlint's
  // typescript-go for TypeScript's diagnostics and the type-aware rules, ESLint for the rest
  // (docs/decisions/0025; about 57 CPU-seconds, where one TypeScript program per project shared
  // by the type check and ESLint took 142-168).
  ['type check and lint', 'node', ['scripts/check-code.mjs']],
  // The format (Biome, biome.json; docs/decisions/0028): about 2 CPU-seconds.
  ['format (Biome)', 'node_modules/.bin/biome', ['format', '.'], {}, BESIDE],
  ...(built ? [['documentation (site and links)', 'node', ['scripts/check-docs.mjs'], {}, BESIDE]] : []),
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
].map((step) => ({ title: step[0], done: startStep(step) }));
if (!built) failures.push('documentation and end-to-end (not run: the build failed)');

// The server's suite starts as soon as the scenarios are the only step left, rather than after
// their last ones: at nice 10 (SCENARIOS_FIRST), so that the scenarios' last minutes, whose
// deadlines are kept for a machine they share with steps of their own phase, keep their cores,
// and the suite takes what they leave (the phase's end used about one and a half cores) until they
// end. The scenarios' output is held until the suite's has been printed.
const SCENARIOS_FIRST = 10;
const scenarios = side.find(({ title }) => title === 'end-to-end');
for (const result of await Promise.all(side.filter((step) => step !== scenarios).map(({ done }) => done)))
  report(result);
const server = runLive(
  'unit and integration (server)',
  'npx',
  vitest(['--project', 'server'], serverReport),
  scenarios === undefined ? 0 : SCENARIOS_FIRST,
);
const [, scenariosResult] = await Promise.all([server, scenarios?.done]);
timings.push(`(the phase of the steps side by side and the server's suite: ${seconds(sideStarted)})`);
if (scenariosResult !== undefined) report(scenariosResult);
countVitest(browserReport);
countPlaywright(playwrightReport);
countVitest(serverReport);

if (failures.length > 0) process.stdout.write(`\nfailed steps: ${failures.join(', ')}\n`);
process.stdout.write(`\ntook ${seconds(began)}: ${timings.join(', ')}\n`);
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failures.length > 0 || failed > 0 ? 1 : 0);
