import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { newId } from '../src/crypto/ids.js';
import type { Store } from '../src/store/store.js';

/**
 * What the benches share about the processes they measure: starting one (the built server, a
 * bare Fastify route), stopping it, and reading its CPU from the operating system, as the
 * guard of ADR 0051 reads it (`bench/load.ts`, `bench/request-overhead.ts`).
 */
export interface Running {
  child: ChildProcess;
  /** Its base URL, without a trailing slash or the page's `/dea/`. */
  base: string;
}

/** The server package's folder: a child starts there, so it finds the same packages. */
export const SERVER_PACKAGE = dirname(dirname(fileURLToPath(import.meta.url)));

/** A process that prints the URL it listens on (`pattern`'s first group); resolved with its base URL. */
export function startProcess(args: string[], env: Record<string, string>, pattern: RegExp): Promise<Running> {
  const child = spawn(process.execPath, args, {
    cwd: SERVER_PACKAGE,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match?.[1]) {
        // From now on its output goes nowhere, as a service's log would go to a collector.
        child.stdout.removeAllListeners('data').resume();
        child.stderr.removeAllListeners('data').resume();
        resolve({ child, base: match[1].replace('localhost', '127.0.0.1').replace(/\/(dea\/)?$/, '') });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
}

export async function stop(running: Running): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  await exited;
}

/**
 * The product's server from `entry` (a built `dist/server.js`) on a free port, logging at info to
 * nowhere, with `BENCH_PROFILE` its CPU profile; `env` adds to (or replaces) the settings every
 * bench gives it. To study a run: `BENCH_IMPORT=<module>` preloads a module into the server (an
 * instrument of one's own), `BENCH_NODE_FLAGS` adds Node's flags (`--perf-basic-prof` for `perf`).
 */
export function startServer(entry: string, env: Record<string, string>): Promise<Running> {
  return startProcess(
    [
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      ...(process.env.BENCH_IMPORT ? ['--import', process.env.BENCH_IMPORT] : []),
      ...(process.env.BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
      entry,
    ],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DEA_LOG_LEVEL: 'info',
      DEA_PASSWORD_HASH_COST: '10',
      DEA_SHUTDOWN_DRAIN_SECONDS: '0',
      ...env,
    },
    /running: (http:\/\/\S+?\/dea\/)/,
  );
}

/** The bare route every figure is compared with: bare Fastify, a JSON POST at `/bare`. */
export const BARE_SERVER = `
import Fastify from 'fastify';
const app = Fastify();
app.post('/bare', async () => ({ ok: true }));
await app.listen({ port: 0, host: '127.0.0.1' });
console.log('bare: http://127.0.0.1:' + app.server.address().port + '/');
`;

/** Starts the bare route's server (`node --input-type=module -e BARE_SERVER`). */
export function startBare(): Promise<Running> {
  return startProcess(['--input-type=module', '-e', BARE_SERVER], {}, /bare: (http:\/\/\S+)/);
}

const CLOCK_TICKS_PER_SECOND = 100;

/** The middle of `values` (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Where Linux's guest halt-polling driver keeps how long an idle virtual core polls before it halts. */
const HALT_POLL_FILE = '/sys/module/haltpoll/parameters/guest_halt_poll_ns';

/**
 * The virtual cores' halt polling, as a run's heading names it: from one client a bare request
 * costs mostly the waking of a halted core, so a figure in bare requests from one client moves
 * with it (docs/benchmarks.md, "The pair's floor"). Where the machine has no such setting, says so.
 */
export function haltPolling(): string {
  let nanoseconds: number;
  try {
    nanoseconds = Number(readFileSync(HALT_POLL_FILE, 'utf8').trim());
  } catch {
    return 'no halt polling setting';
  }
  return nanoseconds === 0
    ? "the virtual cores' halt polling off"
    : `the virtual cores' halt polling ${nanoseconds / 1000} µs`;
}

/** CPU seconds the process has used so far (Linux: /proc/<pid>/stat, user + system); NaN once gone. */
export function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/**
 * A group whose Self Service policy shows codes on screen, each user holding up to 100 unused
 * codes valid `codeValidityMinutes`: the benches' users issue codes on screen. Answers its id.
 */
export async function groupShowingCodes(
  store: Store,
  name: string,
  codeValidityMinutes: number,
): Promise<string> {
  const id = newId();
  await store.groups.create({ id, name, priority: 0 });
  await store.groups.setPolicy(id, POLICY_CATEGORY_SELF_SERVICE, {
    enableECode: true,
    emergencyCodeDelivery: 'Display',
    maxUnusedCodes: 100,
    codeValidityMinutes,
  });
  return id;
}
