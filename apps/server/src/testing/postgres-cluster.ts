import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';
import { outputLine } from './output-line.js';

/**
 * A throwaway PostgreSQL cluster for tests, started with the installed server binaries.
 * initdb refuses to run as root, so as root the cluster runs as the `postgres` user.
 */
export interface PostgresCluster {
  url: string;
  stop(): Promise<void>;
  /** Fault tests: shut the server down (fast: connections are ended), keeping its data. */
  shutDown(): Promise<void>;
  /** Fault tests: start it again on the same port and data. */
  startUp(): Promise<void>;
  /** Fault tests: freeze every process of the server (SIGSTOP), or let them go on (SIGCONT). */
  freeze(): void;
  thaw(): void;
  /** What the server has written (its log), for a test that waits on a line of it. */
  log(): string;
  /**
   * The CPU seconds (user and system) the server's processes have used so far: the postmaster, its
   * children (backends and workers) and the children it has reaped (benchmarks: before and after).
   */
  cpuSeconds(): number;
}

function serverBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) {
    throw new Error(
      'PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql), ' +
        'or set TEST_DATABASE_URL',
    );
  }
  return join(root, newest, 'bin');
}

const asRoot = process.getuid?.() === 0;

function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * What the postmaster logs (stderr) once it accepts connections: its sockets listen before, and
 * the startup process has finished.
 */
const READY = /database system is ready to accept connections/;

/** Resolved once the server just started (its output from `from` on) says it is ready. */
function ready(server: ChildProcess, output: () => string, from: number): Promise<unknown> {
  return outputLine(server, output, READY, { what: 'postgres', deadlineMs: 45_000, from });
}

/** What makes a commit durable; tests turn them off for speed, a benchmark keeps them as production does. */
export const DURABILITY_SETTINGS = ['fsync', 'synchronous_commit', 'full_page_writes'] as const;

/** The durability settings a server runs with (`SHOW`), e.g. { fsync: 'on', ... }. */
export async function durabilityOf(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const values: Record<string, string> = {};
    for (const name of DURABILITY_SETTINGS) {
      const { rows } = await client.query<Record<string, string>>(`SHOW ${name}`);
      values[name] = rows[0]?.[name] ?? '';
    }
    return values;
  } finally {
    await client.end();
  }
}

/**
 * `settings`: further server settings (`-c name=value`), for a benchmark that sizes the cluster as
 * a deployment would. Tests run without durable commits (fsync, synchronous_commit and
 * full_page_writes off: a crash of a test cluster loses nothing anyone needs); `durable: true`
 * keeps PostgreSQL's defaults, every commit flushed to disk, as in production (benchmarks).
 */
export async function startPostgresCluster(
  settings: Record<string, string> = {},
  options: { durable?: boolean } = {},
): Promise<PostgresCluster> {
  const durable = options.durable === true;
  const bin = serverBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'dea-pg-'));
  chmodSync(dir, 0o777);
  const dataDir = join(dir, 'data');
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const [initdb, initdbArgs] = asPostgresUser(join(bin, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '-A',
    'trust',
    ...(durable ? [] : ['--no-sync']),
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  execFileSync(initdb, initdbArgs, { stdio: 'pipe' });
  const port = await freePort();
  const [postgres, postgresArgs] = asPostgresUser(join(bin, 'postgres'), [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    ...DURABILITY_SETTINGS.flatMap((name) => ['-c', `${name}=${durable ? 'on' : 'off'}`]),
    '-c',
    'max_connections=200',
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ]);
  let output = '';
  let server: ChildProcess = spawn(postgres, postgresArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  const listen = (child: ChildProcess) => {
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  };
  listen(server);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await ready(server, () => output, 0);
  const postmasterPid = (): number =>
    Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  /** The postmaster and its children (the backends and workers). */
  const serverPids = (): number[] => {
    const parent = postmasterPid();
    const children = execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    return [parent, ...children];
  };
  const shutDown = async (): Promise<void> => {
    if (server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    // Signal the postmaster itself (fast shutdown): runuser, its parent as root, blocks SIGINT.
    const pid = postmasterPid();
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGINT');
    else server.kill('SIGTERM');
    await exited;
  };
  return {
    url,
    shutDown,
    async startUp() {
      if (server.exitCode === null) return;
      const from = output.length;
      server = spawn(postgres, postgresArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
      listen(server);
      await ready(server, () => output, from);
    },
    freeze() {
      for (const pid of serverPids()) process.kill(pid, 'SIGSTOP');
    },
    thaw() {
      for (const pid of serverPids()) process.kill(pid, 'SIGCONT');
      // runuser stops itself when the postmaster it waits for stops (job control): it goes on too.
      if (server.pid !== undefined && server.exitCode === null) process.kill(server.pid, 'SIGCONT');
    },
    log: () => output,
    cpuSeconds() {
      const parent = postmasterPid();
      return serverPids().reduce((sum, pid) => sum + cpuSecondsOfProcess(pid, pid === parent), 0);
    },
    async stop() {
      await shutDown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new, empty database on the server of `adminUrl`, for one test file. */
/** Linux's clock ticks a second (USER_HZ), in which /proc/<pid>/stat counts CPU time. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * A process's CPU seconds from /proc/<pid>/stat (utime and stime; with `reaped`, also cutime and
 * cstime: its children that have exited); 0 for a process that has gone.
 */
export function cpuSecondsOfProcess(pid: number, reaped = false): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = [11, 12, ...(reaped ? [13, 14] : [])].reduce((sum, at) => sum + Number(fields[at]), 0);
    return ticks / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export async function createTestDatabase(
  adminUrl: string,
  /** A database to copy (testing/store-templates.ts: the run's migrated one); PostgreSQL's own by default. */
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `dea_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A pool of a test's own on a database of createTestDatabase. `pool.end()` resolves before its
 * connections have closed, and `drop()` ends every connection left (WITH (FORCE)): an error a
 * connection gets meanwhile is heard here, as the store's own pool hears it (store/open-store.ts),
 * and never ends the worker.
 */
export function testPool(url: string, max?: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, ...(max === undefined ? {} : { max }) });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
