#!/usr/bin/env node
// The `dea` command. Plain JavaScript and committed, so that `npm ci` links it into
// node_modules/.bin before anything is built: `npx dea` then always runs this checkout's tool and
// never asks the registry for a package of that name.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// dist/dea.js is the built tool in one file (scripts/bundle.mjs): it starts four times faster.
const cli = new URL('../dist/dea.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    `dea is not built yet (${fileURLToPath(cli)} is missing): run "npm run build" (or "npm start") in the repository first\n`,
  );
  process.exit(1);
}
await import(cli.href);
