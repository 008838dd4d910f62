import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The server package. Its processes run the build (`dist/`), as `npm start` and `dea` do. */
export const serverPackage = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** The newest modification time of the built sources under `dir` (tests and their helpers left out). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing') newest = Math.max(newest, newestSource(path));
    } else if (/(?<!\.test|\.suite)\.ts$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

let checked: string | undefined;

/** Why the build cannot be used ('' when it can): missing, or older than a source it is built from. */
function buildProblem(): string {
  // The contract, built by tsc (its record), which the bundles take from its dist/.
  const contract = join(serverPackage, '..', '..', 'packages', 'contract');
  const record = join(contract, 'tsconfig.tsbuildinfo');
  if (!existsSync(record)) return `${contract} is not built (no ${record}): run "npm run build" first`;
  if (newestSource(join(contract, 'src')) > statSync(record).mtimeMs)
    return `the build of ${contract} is older than its sources: run "npm run build" first`;
  // The tool and the server, each in one file made from the sources (scripts/bundle.mjs), after them.
  const sources = Math.max(newestSource(join(serverPackage, 'src')), statSync(record).mtimeMs);
  for (const bundle of ['dea.js', 'server.js'].map((name) => join(serverPackage, 'dist', name))) {
    if (!existsSync(bundle)) return `${serverPackage} is not built (no ${bundle}): run "npm run build" first`;
    if (sources > statSync(bundle).mtimeMs)
      return `${bundle} is older than the sources it is built from: run "npm run build" first`;
  }
  return '';
}

/**
 * The built entry point `dist/<name>.js` (each in one file: scripts/bundle.mjs), the build
 * checked once per worker (its test files share this module): missing or older than its sources,
 * the test stops and says to build (`npm test` builds once, first), rather than compiling
 * TypeScript at every start of a process.
 */
export function builtEntry(name: 'server' | 'dea'): string {
  checked ??= buildProblem();
  if (checked !== '') throw new Error(checked);
  return join(serverPackage, 'dist', `${name}.js`);
}

/** The server's built entry in its own process (`--help` and refusals included), output piped. */
export function spawnServer(
  args: string[],
  env: Record<string, string>,
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [builtEntry('server'), ...args], {
    cwd: serverPackage,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface RunningServer {
  child: ChildProcess;
  url: string;
  /** http://127.0.0.1:<port>, without the page's path. */
  base: string;
  output: () => string;
}

export interface StartingServer {
  child: ChildProcess;
  output: () => string;
  /** Resolved once its output (stdout and stderr) matches `pattern`; rejected if it exits first. */
  said: (pattern: RegExp) => Promise<string>;
  /** Resolved once it says where it runs; rejected with its output when it exits first. */
  running: Promise<RunningServer>;
}

/**
 * The built server in its own process on a free port, with what it says as it starts: a test
 * waits on a line of its output, never on a guessed time. No drain on stop unless `env` asks.
 */
export function spawnServerProcess(env: Record<string, string>, args: string[] = []): StartingServer {
  const child = spawnServer(args, {
    PORT: '0',
    HOST: '127.0.0.1',
    DEA_PASSWORD_HASH_COST: '10',
    DEA_SHUTDOWN_DRAIN_SECONDS: '0',
    ...env,
  });
  let output = '';
  const waiting = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const check of waiting) check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`))),
  );
  exited.catch(() => undefined);
  const said = (pattern: RegExp): Promise<string> =>
    Promise.race([
      new Promise<string>((resolve) => {
        const check = (): void => {
          const match = pattern.exec(output);
          if (!match) return;
          waiting.delete(check);
          resolve(match[0]);
        };
        waiting.add(check);
        check();
      }),
      exited,
    ]);
  const running = said(/running: (https?:\/\/[^\s",]+)/).then((line) => {
    const url = line.replace(/^running: /, '').replace('localhost', '127.0.0.1');
    return { child, url, base: url.replace(/\/dea\/$/, ''), output: () => output };
  });
  running.catch(() => undefined);
  return { child, output: () => output, said, running };
}

/** `spawnServerProcess`, resolved once the server says where it runs. */
export function startServerProcess(env: Record<string, string>, args: string[] = []): Promise<RunningServer> {
  return spawnServerProcess(env, args).running;
}

/** How a process ended. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** `dea` as an operator runs it, in its own process. */
export function runDea(
  args: string[],
  env: Record<string, string>,
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [builtEntry('dea'), ...args], {
    cwd: serverPackage,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}
