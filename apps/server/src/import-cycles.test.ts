import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No module of the product imports itself back, through any chain of run-time imports: a cycle
 * makes the order of evaluation decide whether a value is there yet, and ties layers that the
 * lint rules keep apart (.oxlintrc.json) in ways they cannot see (two files of one folder).
 * Type-only imports are left out: they vanish from the JavaScript.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCES = ['apps/server/src', 'apps/web/src', 'packages/contract/src'];

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'testing' ? [] : sourcesUnder(path);
    return /\.tsx?$/.test(entry.name) &&
      !/\.(test|suite)\.tsx?$/.test(entry.name) &&
      !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

/** Whether an import brings values at run time (not `import type`, not only `type` names). */
function importsValues(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement))
    return (
      !statement.isTypeOnly &&
      !(
        statement.exportClause !== undefined &&
        ts.isNamedExports(statement.exportClause) &&
        statement.exportClause.elements.every((element) => element.isTypeOnly)
      )
    );
  const clause = statement.importClause;
  if (clause === undefined) return true;
  if (clause.isTypeOnly) return false;
  if (clause.name !== undefined) return true;
  const bindings = clause.namedBindings;
  return (
    bindings === undefined ||
    ts.isNamespaceImport(bindings) ||
    bindings.elements.some((element) => !element.isTypeOnly)
  );
}

/** The run-time imports of a file, as files of the set. */
function importsOf(file: string, files: ReadonlySet<string>): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.'))
      continue;
    if (!importsValues(statement)) continue;
    const base = resolve(dirname(file), specifier.text).replace(/\.js$/, '');
    const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => files.has(path));
    if (target !== undefined) found.push(target);
  }
  return found;
}

/** The groups of files that import each other (Tarjan's strongly connected components of two or more). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(relative(ROOT, member));
    } while (member !== file);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the imports of the product', () => {
  it.each(SOURCES)('form no cycle in %s', (folder) => {
    const files = sourcesUnder(join(ROOT, folder));
    expect(files.length).toBeGreaterThan(10);
    const set = new Set(files);
    const graph = new Map(files.map((file) => [file, importsOf(file, set)]));
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    expect(
      cyclesOf(
        new Map([
          [join(ROOT, 'a.ts'), [join(ROOT, 'b.ts')]],
          [join(ROOT, 'b.ts'), [join(ROOT, 'c.ts')]],
          [join(ROOT, 'c.ts'), [join(ROOT, 'a.ts')]],
          [join(ROOT, 'd.ts'), [join(ROOT, 'a.ts')]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('reads run-time imports and leaves type-only ones out', () => {
    const statementOf = (code: string) =>
      ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, false).statements[0] as ts.ImportDeclaration;
    expect(importsValues(statementOf("import type { A } from './a.js';"))).toBe(false);
    expect(importsValues(statementOf("import { type A, type B } from './a.js';"))).toBe(false);
    expect(importsValues(statementOf("export type { A } from './a.js';"))).toBe(false);
    expect(importsValues(statementOf("import { type A, b } from './a.js';"))).toBe(true);
    expect(importsValues(statementOf("import * as a from './a.js';"))).toBe(true);
    expect(importsValues(statementOf("import './a.js';"))).toBe(true);
    expect(importsValues(statementOf("export { a } from './a.js';"))).toBe(true);
    const folder = join(ROOT, 'apps/server/src/routes');
    const imports = importsOf(join(folder, 'page-html-route.ts'), new Set(sourcesUnder(folder)));
    expect(imports.map((file) => relative(folder, file))).toEqual(
      expect.arrayContaining(['json-for-html.ts', 'first-paint.ts', 'page-without-session.ts']),
    );
  });
});
