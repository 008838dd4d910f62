#!/usr/bin/env node
// npm run check (and a step of `npm test`): the type check and ESLint in one process, on one
// TypeScript program per project. `npm run typecheck` and `npm run lint` each build these programs
// and type every file of them, the one for its errors, the other for its type-aware rules; here
// the checker that found the type errors answers the lint rules' questions too (its types are
// already computed). The same tsconfig files as `npm run typecheck`, the same eslint.config.js as
// `npm run lint`; Prettier stays a step of its own (`npx prettier --check .`).
// --no-lint: the type check only; --no-types: ESLint only (on the same programs).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { CONTRACT_TEST_FILES, DEFAULT_PROJECT_FILES } from '../eslint.config.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = new Set(process.argv.slice(2));
const began = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** The contract's tests (eslint.config.js CONTRACT_TEST_FILES) with the sources they import. */
const CONTRACT_TESTS_PROJECT = 'packages/contract/tsconfig.test.json';

/**
 * The projects of `npm run typecheck`, in the order a file is looked for (a file of two programs,
 * the contract's sources, is linted in the first: its own, as the project service does).
 */
const PROJECTS = [
  'packages/contract/tsconfig.json',
  // The contract's tests, which no other program holds, with the sources they import.
  CONTRACT_TESTS_PROJECT,
  'apps/server/tsconfig.json',
  'apps/web/tsconfig.app.json',
  'apps/web/tsconfig.node.json',
  'e2e/tsconfig.json',
];

// The contract's declarations (dist/), which e2e and the packages' own resolution read, as
// `npm run lint` builds them first; nothing to do after `npm run build`.
const contract = spawnSync('npx', ['tsc', '-b', 'packages/contract'], { cwd: ROOT, stdio: 'inherit' });
if (contract.status !== 0) process.exit(1);

const formatHost = {
  getCanonicalFileName: (file) => file,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => '\n',
};

function createProgram(project) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, project), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.formatDiagnostics([diagnostic], formatHost));
    },
  });
  // Parent pointers set, as typescript-eslint's own programs have them.
  const host = ts.createCompilerHost(parsed.options, true);
  return {
    project,
    configErrors: parsed.errors,
    program: ts.createProgram({
      rootNames: parsed.fileNames,
      options: parsed.options,
      projectReferences: parsed.projectReferences,
      host,
    }),
  };
}

/**
 * A project's errors, as `tsc -p <project> --noEmit` reports them; of the contract's test program,
 * those of its tests only (its sources are the contract program's, checked there, and checking
 * them again cost about as much as the tests: their TypeBox types).
 */
function diagnosticsOf(project, program) {
  if (project !== CONTRACT_TESTS_PROJECT) return ts.getPreEmitDiagnostics(program);
  const tests = program.getSourceFiles().filter((file) => file.fileName.endsWith('.test.ts'));
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...tests.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
}

let failed = false;
const typesBegan = performance.now();
const programs = PROJECTS.map(createProgram);
if (!args.has('--no-types')) {
  // What `tsc -p <project> --noEmit` reports: options, syntax, types (and declarations' errors).
  let errors = 0;
  for (const { project, configErrors, program } of programs) {
    const diagnostics = [...configErrors, ...diagnosticsOf(project, program)];
    if (diagnostics.length === 0) continue;
    process.stdout.write(`\n${project}:\n`);
    process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
    errors += diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  }
  process.stdout.write(
    `type check: ${errors} errors in ${PROJECTS.length} projects (${seconds(typesBegan)})\n`,
  );
  if (errors > 0) failed = true;
}

if (!args.has('--no-lint')) {
  const lintBegan = performance.now();
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: [
      {
        // Every TypeScript file of a project is linted on that project's program (the contract's
        // tests on tsconfig.test.json's); those of no project (eslint.config.js's default project:
        // the root's config, the documentation theme) keep the project service. A TypeScript file
        // in neither stops the lint with "not found in any of the provided program instance(s)",
        // as the project service stops on a file of no project.
        files: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'],
        ignores: DEFAULT_PROJECT_FILES.filter((glob) => !CONTRACT_TEST_FILES.includes(glob)),
        languageOptions: {
          parserOptions: {
            projectService: false,
            project: false,
            programs: programs.map(({ program }) => program),
          },
        },
      },
    ],
  });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  const output = await formatter.format(results);
  if (output) process.stdout.write(output);
  const errors = results.reduce((sum, result) => sum + result.errorCount + result.fatalErrorCount, 0);
  process.stdout.write(`lint: ${errors} errors in ${results.length} files (${seconds(lintBegan)})\n`);
  if (errors > 0) failed = true;
}

process.stdout.write(`checked in ${seconds(began)}${failed ? ': failed' : ''}\n`);
process.exit(failed ? 1 : 0);
