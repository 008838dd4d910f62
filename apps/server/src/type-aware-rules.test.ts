import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY } from './testing/guide-pages.js';

/**
 * The type check and typescript-eslint's type-aware rules run in oxlint's typescript-go
 * (.oxlintrc.json, scripts/check-code.mjs, docs/decisions/0025), ESLint keeping the rules that
 * need no types. This holds the two halves together: every type-aware rule of typescript-eslint's
 * recommendedTypeChecked is one of oxlint's, and each of them, and the type check, fails a file
 * that breaks it, as `npm test`'s check runs them.
 */
const CONFIG = join(REPOSITORY, '.oxlintrc.json');

/** Off here as it was in ESLint: Fastify plugins and hooks are async by contract, awaiting or not. */
const TURNED_OFF = ['typescript/require-await'];

interface OxlintConfig {
  overrides: { files: string[]; rules: Record<string, string> }[];
}

/** Where `.oxlintrc.json` turns the rules on: its first override, for TypeScript files. */
const TYPESCRIPT_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];

/** The type-aware rules recommendedTypeChecked turns on, as oxlint names them. */
function recommendedTypeAwareRules(): string[] {
  const rules: Record<string, unknown> = {};
  for (const config of tseslint.configs.recommendedTypeChecked) Object.assign(rules, config.rules ?? {});
  // The plugin's type leaves its rules out (ESLint's compatible shape); each rule's meta says
  // whether it needs types.
  const plugin = (
    tseslint.plugin as unknown as {
      rules: Record<string, { meta: { docs?: { requiresTypeChecking?: boolean } } }>;
    }
  ).rules;
  return Object.entries(rules)
    .filter(([name, level]) => {
      const rule = plugin[name.replace('@typescript-eslint/', '')];
      const off = level === 'off' || (Array.isArray(level) && level[0] === 'off');
      return name.startsWith('@typescript-eslint/') && !off && rule?.meta.docs?.requiresTypeChecking === true;
    })
    .map(([name]) => name.replace('@typescript-eslint/', 'typescript/'))
    .sort();
}

/** A source that breaks each rule once (the comment names it), and the type check. */
const VIOLATIONS = `declare const anyValue: any;
declare function takesVoid(callback: () => void): void;
enum Fruit { Apple = 'apple' }
export const typeError: number = 'text';
export async function violations(): Promise<void> {
  await 1; // await-thenable
  const list = [1, 2];
  delete list[0]; // no-array-delete
  const text = String({}); // no-base-to-string
  type Twice = string | string; // no-duplicate-type-constituents
  Promise.resolve(1); // no-floating-promises
  for (const index in list) void index; // no-for-in-array
  setTimeout('1 + 1'); // no-implied-eval
  takesVoid(async () => {}); // no-misused-promises
  type Redundant = unknown | string; // no-redundant-type-constituents
  const same = text as string; // no-unnecessary-type-assertion
  Math.max(anyValue); // no-unsafe-argument
  const assigned: number = anyValue; // no-unsafe-assignment
  anyValue(); // no-unsafe-call
  const equal = Fruit.Apple === 'apple'; // no-unsafe-enum-comparison
  void anyValue.member; // no-unsafe-member-access
  const minus = -(text as unknown as bigint | string); // no-unsafe-unary-minus
  void Promise.reject('text'); // prefer-promise-reject-errors
  void ('text' + {}); // restrict-plus-operands
  void \`\${[1]}\`; // restrict-template-expressions
  const { toFixed } = 1; // unbound-method
  void [assigned, equal, same, minus, toFixed] as unknown as [Twice, Redundant];
  throw 'text'; // only-throw-error
}
export function unsafeReturn() {
  return anyValue; // no-unsafe-return
}
`;

/** A test file: its untyped JSON answers may be used freely, its promises still awaited. */
const TEST_FILE = `declare const anyValue: any;
export const answer: number = anyValue.count;
Math.max(anyValue.count);
Promise.resolve(1);
`;

interface Finding {
  code: string;
  filename: string;
  severity: string;
}

describe("the type check and the type-aware rules (oxlint's typescript-go)", () => {
  let folder: string;
  let findings: Finding[];
  let status: number | null;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'dea-type-aware-'));
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: [],
          noEmit: true,
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(join(folder, 'violations.ts'), VIOLATIONS);
    writeFileSync(join(folder, 'answers.test.ts'), TEST_FILE);
    writeFileSync(join(folder, 'type-error.ts'), "export const count: number = 'one';\n");
    // From the repository, as npm test runs it: oxlint finds oxlint-tsgolint in its node_modules.
    const run = spawnSync(
      join(REPOSITORY, 'node_modules/.bin/oxlint'),
      ['-c', CONFIG, '--format', 'json', folder],
      {
        cwd: REPOSITORY,
        encoding: 'utf8',
      },
    );
    status = run.status;
    findings = (JSON.parse(run.stdout) as { diagnostics: Finding[] }).diagnostics;
  }, 60_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const codesIn = (file: string) =>
    new Set(
      findings
        .filter((finding) => finding.filename.endsWith(file))
        .map((finding) => finding.code.replace(/^typescript\((.*)\)$/, 'typescript/$1')),
    );

  it("holds every type-aware rule of typescript-eslint's recommendedTypeChecked, as an error", () => {
    // The file's comments are whole lines.
    const text = readFileSync(CONFIG, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const config = JSON.parse(text) as OxlintConfig;
    const [typescript] = config.overrides;
    expect(typescript?.files).toEqual(TYPESCRIPT_FILES);
    const rules = typescript?.rules ?? {};
    const expected = recommendedTypeAwareRules();
    expect(expected.length).toBeGreaterThan(20);
    expect(Object.keys(rules).sort()).toEqual(expected);
    for (const rule of expected) expect(rules[rule], rule).toBe(TURNED_OFF.includes(rule) ? 'off' : 'error');
  });

  it('fails a file on each of those rules', () => {
    expect(status).toBe(1);
    const codes = codesIn('violations.ts');
    // The source breaks the rules and, once, TypeScript itself.
    expect([...codes].filter((code) => /TS\d+$/.test(code))).toEqual(['typescript/TS2322']);
    const missing = recommendedTypeAwareRules().filter(
      (rule) => !TURNED_OFF.includes(rule) && !codes.has(rule),
    );
    expect(missing).toEqual([]);
  });

  it('fails a file whose only fault is a type error, as an error', () => {
    const found = findings.filter((finding) => finding.filename.endsWith('/type-error.ts'));
    expect(found.map(({ code, severity }) => [code, severity])).toEqual([['typescript(TS2322)', 'error']]);
  });

  it('lets a test use its untyped answers, and still fails its promise that nobody awaits', () => {
    const codes = codesIn('answers.test.ts');
    expect([...codes].sort()).toEqual(['typescript/no-floating-promises']);
  });
});

/**
 * oxlint gives a TypeScript file to the project of the first tsconfig.json above it that holds it,
 * itself or through its references (as editors do); a file none holds is checked in an inferred
 * project, with TypeScript's defaults instead of tsconfig.base.json's options. Only these few may
 * be there (the root's configurations, the documentation site's, a script's declarations): a new
 * source no project finds fails here rather than being checked more loosely.
 */
const OF_NO_PROJECT = [
  /^[^/]+\.ts$/,
  /^docs\/\.vitepress\/(theme\/)?[^/]+\.mts$/,
  /^scripts\/[^/]+\.d\.mts$/,
];

const parsedConfigs = new Map<string, ts.ParsedCommandLine>();

/** A tsconfig file as TypeScript reads it (its files and references), once. */
function parsedConfig(path: string): ts.ParsedCommandLine {
  let parsed = parsedConfigs.get(path);
  if (parsed === undefined) {
    parsed = ts.getParsedCommandLineOfConfigFile(path, undefined, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    });
    if (parsed === undefined) throw new Error(`${path} could not be read`);
    parsedConfigs.set(path, parsed);
  }
  return parsed;
}

/** Whether the project of `config`, or one it references, holds `file`. */
function holds(config: string, file: string): boolean {
  const parsed = parsedConfig(config);
  if (parsed.fileNames.includes(file)) return true;
  return (parsed.projectReferences ?? []).some((reference) =>
    holds(ts.resolveProjectReferencePath(reference), file),
  );
}

/** Whether a tsconfig.json in the file's folder or above it holds it, as oxlint looks. */
function foundInAProject(file: string): boolean {
  const root = resolve(REPOSITORY);
  for (let folder = dirname(file); folder.startsWith(root); folder = dirname(folder)) {
    const config = join(folder, 'tsconfig.json');
    if (existsSync(config) && holds(config, file)) return true;
    if (folder === root) break;
  }
  return false;
}

describe('the TypeScript files and their projects', () => {
  it('gives every TypeScript file a project oxlint finds, but for the few that have none', () => {
    const files = spawnSync('git', ['ls-files', '*.ts', '*.tsx', '*.mts', '*.cts'], {
      cwd: REPOSITORY,
      encoding: 'utf8',
    })
      .stdout.split('\n')
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(500);
    const outside = files.filter((file) => !foundInAProject(join(REPOSITORY, file)));
    expect(outside.filter((file) => !OF_NO_PROJECT.some((pattern) => pattern.test(file)))).toEqual([]);
    // Without the root tsconfig.json's reference, the contract's tests were outside.
    expect(files.some((file) => /^packages\/contract\/src\/.*\.test\.ts$/.test(file))).toBe(true);
  });
});
