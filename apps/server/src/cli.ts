#!/usr/bin/env node
import { runCli } from './cli/run.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Only a command that runs until interrupted (audit follow) takes Ctrl-C over; others just end. */
function interrupted(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return controller.signal;
}

/** `dea`: the operator's command-line tool (see cli/run.ts). */
runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readStdin,
  interrupted,
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`dea failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
