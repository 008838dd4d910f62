#!/usr/bin/env node
// `npm test`: builds, checks types and lint, then runs every test — unit and integration on
// both stores (Vitest; the browser and the contract with the coverage report of vitest.config.ts
// and its floor), end-to-end in Chromium (Playwright) — and closes with one summary line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const reports = mkdtempSync(join(tmpdir(), 'dea-test-'));
const failures = [];
let passed = 0;
let failed = 0;
let skipped = 0;

function run(title, command, args, env = {}) {
  process.stdout.write(`\n=== ${title}: ${command} ${args.join(' ')}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) failures.push(title);
  return result.status === 0;
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
run('typecheck', 'npm', ['run', 'typecheck']);
run('lint', 'npm', ['run', 'lint']);

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
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failures.length > 0 || failed > 0 ? 1 : 0);
