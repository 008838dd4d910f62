#!/usr/bin/env node
// npm run check (and a step of `npm test`): the type check and the lint, the two halves at once.
// - oxlint with oxlint-tsgolint (.oxlintrc.json): TypeScript's own diagnostics for every
//   TypeScript file, each in its project (the tsconfig.json next to it or above it, following its
//   references; a file of no project in one inferred), and typescript-eslint's type-aware
//   recommended rules (recommendedTypeChecked: no-floating-promises, no-misused-promises,
//   no-unsafe-*, ...), both on typescript-go's checker, natively and on every core.
// - ESLint (eslint.config.js): the rules that need no types: ESLint's and typescript-eslint's
//   recommended ones, React's hooks, consistent type imports and the dependency directions.
// Why the split, and what it saves: docs/decisions/0025. The format is a step of its own
// (`biome format .`, docs/decisions/0028).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const began = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

// The contract's declarations (dist/), which the other projects import it by: nothing to do after
// `npm run build`.
const contract = spawnSync('npx', ['tsc', '-b', 'packages/contract'], { cwd: ROOT, stdio: 'inherit' });
if (contract.status !== 0) process.exit(1);

/** oxlint's findings and its summary, printed when it ends (not in the middle of ESLint's). */
function typeCheck() {
  const typesBegan = performance.now();
  return new Promise((resolve) => {
    let output = '';
    // The checkout's own oxlint (npx would fetch one from the registry if it were missing).
    const child = spawn(join(ROOT, 'node_modules/.bin/oxlint'), ['--format', 'stylish'], { cwd: ROOT });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) =>
      resolve({ ok: false, output: `oxlint did not start (${error.message}): run npm ci\n` }),
    );
    child.on('close', (code) =>
      resolve({
        ok: code === 0,
        output: `${output}type check and type-aware rules (oxlint): ${code === 0 ? 'no errors' : 'failed'} (${seconds(typesBegan)})\n`,
      }),
    );
  });
}

async function lint() {
  const lintBegan = performance.now();
  const eslint = new ESLint({ cwd: ROOT });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  const output = await formatter.format(results);
  const errors = results.reduce((sum, result) => sum + result.errorCount + result.fatalErrorCount, 0);
  return {
    ok: errors === 0,
    output: `${output}lint (ESLint): ${errors} errors in ${results.length} files (${seconds(lintBegan)})\n`,
  };
}

// Each half's output printed whole, even when the other one threw (ESLint's configuration, say).
const halves = await Promise.allSettled([typeCheck(), lint()]);
const outcomes = halves.map((half) =>
  half.status === 'fulfilled'
    ? half.value
    : { ok: false, output: `${half.reason instanceof Error ? half.reason.stack : String(half.reason)}\n` },
);
for (const { output } of outcomes) process.stdout.write(output);
const failed = outcomes.some(({ ok }) => !ok);
process.stdout.write(`checked in ${seconds(began)}${failed ? ': failed' : ''}\n`);
process.exit(failed ? 1 : 0);
