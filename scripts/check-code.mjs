#!/usr/bin/env node
// npm run check (and a step of `npm test`): the type check and the lint, in one run of oxlint
// (.oxlintrc.json, docs/decisions/0045):
// - TypeScript's own diagnostics for every TypeScript file, each in its project (the
//   tsconfig.json next to it or above it, following its references; a file of no project in one
//   inferred), and typescript-eslint's type-aware recommended rules (recommendedTypeChecked:
//   no-floating-promises, no-misused-promises, no-unsafe-*, ...), both on typescript-go's checker
//   through oxlint-tsgolint, natively and on every core (docs/decisions/0025);
// - the rules that need no types: ESLint's and typescript-eslint's recommended ones, React's
//   hooks, consistent type imports, strict equality and the dependency directions.
// Beside it, that every TypeScript file is in a project oxlint finds, so none is checked with
// TypeScript's defaults instead of tsconfig.base.json's options. The format is a step of its own
// (`biome format .`, docs/decisions/0028).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const began = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

// The contract's declarations (dist/), which the other projects import it by: nothing to do after
// `npm run build`.
const contract = spawnSync('npx', ['tsc', '-b', 'packages/contract'], { cwd: ROOT, stdio: 'inherit' });
if (contract.status !== 0) process.exit(1);

/**
 * The TypeScript files of no project: oxlint gives a file to the project of the first
 * tsconfig.json above it that holds it, itself or through its references (as editors do), and
 * checks a file none holds in an inferred project, with TypeScript's defaults. Only these few may
 * be there: the root's configurations, the documentation site's, a script's declarations.
 */
function filesOfNoProject() {
  const OF_NO_PROJECT = [
    /^[^/]+\.ts$/,
    /^docs\/\.vitepress\/(theme\/)?[^/]+\.mts$/,
    /^scripts\/[^/]+\.d\.mts$/,
  ];
  const ts = createRequire(join(ROOT, 'package.json'))('typescript');
  const configs = new Map();
  const parsed = (path) => {
    if (!configs.has(path)) {
      const config = ts.getParsedCommandLineOfConfigFile(path, undefined, {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(`${path}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
        },
      });
      configs.set(path, { files: new Set(config.fileNames), references: config.projectReferences ?? [] });
    }
    return configs.get(path);
  };
  const holds = (path, file) =>
    parsed(path).files.has(file) ||
    parsed(path).references.some((reference) => holds(ts.resolveProjectReferencePath(reference), file));
  const top = resolve(ROOT);
  const inAProject = (file) => {
    for (let folder = dirname(file); ; folder = dirname(folder)) {
      const config = join(folder, 'tsconfig.json');
      if (existsSync(config) && holds(config, file)) return true;
      if (folder === top || folder === dirname(folder)) return false;
    }
  };
  // The files git holds and the new ones it would (oxlint lints both).
  const listed = spawnSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.tsx', '*.mts', '*.cts'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return listed.stdout
    .split('\n')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)))
    .filter((file) => !OF_NO_PROJECT.some((pattern) => pattern.test(file)) && !inAProject(join(ROOT, file)));
}

// The checkout's own oxlint (npx would fetch one from the registry if it were missing); the
// projects are looked at while it runs, and told of after its findings.
const lintBegan = performance.now();
const lint = new Promise((done) => {
  const child = spawn(join(ROOT, 'node_modules/.bin/oxlint'), ['--format', 'stylish'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  child.on('error', (error) => {
    process.stdout.write(`oxlint did not start (${error.message}): run npm ci\n`);
    done(false);
  });
  child.on('close', (code) => done(code === 0));
});
const outside = filesOfNoProject();
const linted = await lint;
process.stdout.write(
  `type check and lint (oxlint): ${linted ? 'no errors' : 'failed'} (${seconds(lintBegan)})\n`,
);
if (outside.length > 0) {
  process.stdout.write(
    `TypeScript files of no project (add their folder to a tsconfig.json's include or references):\n${outside.map((file) => `  ${file}\n`).join('')}`,
  );
}
const failed = outside.length > 0 || !linted;
process.stdout.write(`checked in ${seconds(began)}${failed ? ': failed' : ''}\n`);
process.exit(failed ? 1 : 0);
