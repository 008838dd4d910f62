// Bundles the built `dea` (dist/cli.js and everything it imports) into one file, dist/dea.js,
// which bin/dea.js runs. Node then reads and links one module instead of about a thousand: the
// tool starts in about a quarter of the time (docs/benchmarks.md, "The command-line tool"), which
// an operator's script of many `dea` lines, and the test suite, feel at every line.
//
// Kept out of the bundle: packages with native code (loaded from node_modules as before) and the
// optional native PostgreSQL driver. The server is not bundled: it serves files that its packages
// find next to their own code.
import { chmodSync } from 'node:fs';
import { build } from 'esbuild';

const outfile = new URL('../dist/dea.js', import.meta.url).pathname;

await build({
  entryPoints: [new URL('../dist/cli.js', import.meta.url).pathname],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // The ECMAScript modules of packages that ship both, as Node itself would load them.
  mainFields: ['module', 'main'],
  external: ['better-sqlite3', 'pg-native'],
  // CommonJS packages inside an ES module bundle still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as deaCreateRequire } from 'node:module';\nconst require = deaCreateRequire(import.meta.url);",
  },
  legalComments: 'linked',
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
