// Compiles the server's sources to dist/, one JavaScript module (with its source map) per
// TypeScript module, and copies the JSON files they import: what scripts/bundle.mjs then makes
// `dist/dea.js` from, and what the repository's scripts import (scripts/docs-reference.mjs,
// scripts/release.mjs: the settings' table). esbuild strips the types, file by file, as
// `isolatedModules` and `verbatimModuleSyntax` (tsconfig.base.json) guarantee it can; the types are
// checked apart, by `npm run check` (oxlint's typescript-go, in `npm test`) and `npm run
// typecheck` (tsc), not at every build: tsc's emit took 24 s and 35 CPU-seconds of a fresh clone's
// build (docs/decisions/0027).
//
// dist/ is made again from nothing at every build: a module whose source is gone leaves nothing
// behind that a script could still import.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');

/** The product's sources under `dir`: not the tests, the shared suites or the tests' helpers. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return /\.json$|(?<!\.test|\.suite|\.d)\.ts$/.test(entry.name) ? [path] : [];
  });
}

rmSync(dist, { recursive: true, force: true });
// The record of the tsc build this replaced, which would otherwise look like a build of its own.
rmSync(join(root, 'tsconfig.build.tsbuildinfo'), { force: true });
const files = sources(src);
for (const json of files.filter((path) => path.endsWith('.json'))) {
  const target = join(dist, relative(src, json));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(json, target);
}
await build({
  entryPoints: files.filter((path) => path.endsWith('.ts')),
  outdir: dist,
  outbase: src,
  bundle: false,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  sourcemap: true,
  tsconfig: join(root, 'tsconfig.build.json'),
  logLevel: 'warning',
});
