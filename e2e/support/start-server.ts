import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputLine } from '../../apps/server/src/testing/output-line';

/** The built server (`npm run build` first), on a free port with a fresh embedded store. */
export interface RunningServer {
  baseUrl: string;
  /** The server's embedded store and secret, for the CLI (`DEA_DATA_DIR`). */
  dataDir: string;
  stop: () => Promise<void>;
}

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const serverEntry = join(repositoryRoot, 'apps/server/dist/server.js');

/**
 * The scenarios' password hashing cost (DEA_PASSWORD_HASH_COST), for their servers and for `dea`
 * on those servers' stores (support/console.ts): a password is checked at the cost it was hashed
 * with.
 */
export const SCENARIO_PASSWORD_HASH_COST = '10';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A safety net only: the wait ends as soon as the server says it listens. On a busy 2-core machine
 * (type check, lint and the documentation's build side by side) a start took more than 20 s.
 */
const START_DEADLINE_MS = 90_000;

/** How long a stopped server may take to exit before it is killed (a safety net: it exits at once). */
const STOP_DEADLINE_MS = 5_000;

export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dea-e2e-'));
  // A caller that must know the address first (a redirect URI to register) chooses the port.
  const port = extraEnv.PORT === undefined ? await freePort() : Number(extraEnv.PORT);
  let output = '';
  const child = spawn(process.execPath, [serverEntry], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      DEA_DATA_DIR: dataDir,
      DEA_DEMO: 'true',
      DEA_SHUTDOWN_DRAIN_SECONDS: '0',
      DEA_PASSWORD_HASH_COST: SCENARIO_PASSWORD_HASH_COST,
      // The start is known by the server's "is running" line, which it logs at info.
      DEA_LOG_LEVEL: 'info',
      // Sign-in throttling without its waits; a user name locks after 3 failures (the lockout
      // scenario), and the one client address all specs share (127.0.0.1) has room to spare.
      DEA_SIGNIN_SLOWDOWN_MS: '0',
      DEA_SIGNIN_MAX_FAILURES: '3',
      DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '100',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    // Its log line at info, after it listens.
    await outputLine(child, () => output, / is running: https?:\/\//, {
      what: 'the server',
      deadlineMs: START_DEADLINE_MS,
    });
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  // Its lines from here on (one a request) are read and dropped: the streams flow on.
  child.stdout?.removeAllListeners('data');
  child.stderr?.removeAllListeners('data');
  return {
    baseUrl,
    dataDir,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
        await exited;
        clearTimeout(kill);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
