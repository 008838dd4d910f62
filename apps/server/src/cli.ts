#!/usr/bin/env node
import { runCli } from './cli/run.js';

/** `dea`: the operator's command-line tool (see cli/run.ts). */
runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`dea failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
