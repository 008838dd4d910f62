/**
 * How long `dea user import` takes for 5,000 users on the embedded store: the first import (every
 * user created with a group, a mobile number and two addresses), the same file again (all
 * unchanged), a dry run, and a second file that changes one user in ten. Runs the built CLI as
 * an operator does: `npx tsx apps/server/bench/user-import.ts` after `npm run build`. Prints a
 * Markdown table for docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServices } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';

const USERS = 5000;
const cli = join(import.meta.dirname, '..', 'dist', 'dea.js');
const folder = mkdtempSync(join(tmpdir(), 'dea-import-bench-'));
const env = {
  ...process.env,
  DEA_DATA_DIR: join(folder, 'data'),
  DEA_SECRET: Buffer.alloc(32, 3).toString('base64'),
  DEA_LOG_LEVEL: 'silent',
};

function dea(...args: string[]): { seconds: number; out: string } {
  const started = performance.now();
  const out = execFileSync(process.execPath, [cli, ...args], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { seconds: (performance.now() - started) / 1000, out: out.trim().split('\n').at(-1) ?? '' };
}

function peopleFile(name: string, changedEvery: number): string {
  const lines = ['username,fullName,locale,timeZone,group,mobile,email,personalEmail'];
  for (let index = 0; index < USERS; index += 1) {
    const changed = changedEvery > 0 && index % changedEvery === 0;
    const number = String(5550000 + index).padStart(7, '0');
    lines.push(
      `user${index},Person ${index},${changed ? 'de' : 'en'},Europe/Berlin,${index % 2 === 0 ? 'Staff' : 'Contractors'},+49 170 ${number},user${index}@example.com,${changed ? `user${index}@home.example` : ''}`,
    );
  }
  const path = join(folder, name);
  writeFileSync(path, lines.join('\n'));
  return path;
}

try {
  // The store a server start makes (the CLI works on an existing one).
  const { services } = await startServices(loadConfig(env));
  await services.store.close();
  dea('group', 'add', '--name', 'Staff', '--priority', '5');
  dea('group', 'add', '--name', 'Contractors', '--priority', '1');
  const first = peopleFile('people.csv', 0);
  const second = peopleFile('people-changed.csv', 10);
  const rows: [string, { seconds: number; out: string }][] = [
    ['first import (all created)', dea('user', 'import', first)],
    ['same file again (all unchanged)', dea('user', 'import', first)],
    ['dry run of a file changing 1 in 10', dea('user', 'import', second, '--dry-run')],
    ['import changing 1 in 10', dea('user', 'import', second)],
  ];
  console.log(`| ${USERS.toLocaleString('en')} users, embedded store | seconds | the command's summary |`);
  console.log('|---|---|---|');
  for (const [label, { seconds, out }] of rows)
    console.log(`| ${label} | ${seconds.toFixed(1)} | ${out.replace(/\|/g, '\\|')} |`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
