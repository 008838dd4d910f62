import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The server package: the real entry points run from sources through tsx, as `npm start` does. */
export const serverPackage = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

export interface RunningServer {
  child: ChildProcess;
  url: string;
  /** http://127.0.0.1:<port>, without the page's path. */
  base: string;
  output: () => string;
}

/**
 * `src/server.ts` in its own process on a free port, resolved once it says where it runs; rejected
 * with its output when it exits first. No drain on stop unless `env` asks for one.
 */
export function startServerProcess(env: Record<string, string>, args: string[] = []): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts', ...args], {
    cwd: serverPackage,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DEA_PASSWORD_HASH_COST: '10',
      DEA_SHUTDOWN_DRAIN_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /running: (https?:\/\/[^\s",]+)/.exec(output);
      if (match?.[1]) {
        const url = match[1].replace('localhost', '127.0.0.1');
        resolve({ child, url, base: url.replace(/\/dea\/$/, ''), output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
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
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
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
