// Bundles the built product into one file per process, after scripts/compile.mjs: Node then reads and links
// one module instead of about a thousand. The command-line tool starts in about a quarter of the
// time (docs/benchmarks.md, "Start-up and the command line"), which an operator's script of many `dea`
// lines, and the test suite, feel at every line; a server's start and stop takes about 2 CPU-seconds
// instead of 3.5 (the same section), at every start and restart of a service and in
// every test that starts one.
//
// - `dist/dea.js` (which bin/dea.js runs): src/cli.ts and everything it imports.
// - `dist/server.js` (what `npm start`, the service unit and the tests run): src/server.ts and
//   everything it imports, written over compile.mjs's own `dist/server.js`.
// Both are made from the sources, as the tests run them, never from a module of dist/.
//
// Kept out of both: the packages of bundle-externals.mjs, loaded from node_modules at run time.
import { chmodSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_EXTERNALS } from './bundle-externals.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

// A bundle that fails leaves none behind, never the last one: `node dist/server.js` would run the
// code of the build before.
for (const bundle of ['../dist/dea.js', '../dist/server.js']) rmSync(here(bundle), { force: true });

const COMMON = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // The ECMAScript modules of packages that ship both, as Node itself would load them.
  mainFields: ['module', 'main'],
  external: BUNDLE_EXTERNALS,
  // CommonJS packages inside an ES module bundle still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as deaCreateRequire } from 'node:module';\nconst require = deaCreateRequire(import.meta.url);",
  },
  legalComments: 'linked',
  logLevel: 'warning',
};

await build({
  ...COMMON,
  entryPoints: [here('../src/cli.ts')],
  outfile: here('../dist/dea.js'),
  tsconfig: here('../tsconfig.build.json'),
});
chmodSync(here('../dist/dea.js'), 0o755);
await build({
  ...COMMON,
  entryPoints: [here('../src/server.ts')],
  outfile: here('../dist/server.js'),
  tsconfig: here('../tsconfig.build.json'),
  allowOverwrite: true,
});
