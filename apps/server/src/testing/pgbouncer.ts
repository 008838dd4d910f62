import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { outputLine } from './output-line.js';

/** Debian's PgBouncer in front of a test PostgreSQL server, pooling by transaction. */
export interface PgBouncer {
  /** The URL of `database` through PgBouncer. */
  urlOf(database: string): string;
  stop(): Promise<void>;
}

const PGBOUNCER = '/usr/sbin/pgbouncer';
const asRoot = process.getuid?.() === 0;

/** What PgBouncer writes once it listens (after "listening on", which follows its listen()). */
const READY = /LOG process up: PgBouncer/;

/**
 * Starts PgBouncer in transaction pooling mode (how large PostgreSQL deployments run) in front of
 * the server of `postgresUrl`: every database, any client user, as that URL's user. As root it
 * runs as the `postgres` user (PgBouncer refuses root).
 */
export async function startPgBouncer(postgresUrl: string): Promise<PgBouncer> {
  const target = new URL(postgresUrl);
  const dir = mkdtempSync(join(tmpdir(), 'dea-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || '5432'} user=${decodeURIComponent(target.username)}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 8',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  chmodSync(config, 0o644);
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const [command, args] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, config]]
    : [PGBOUNCER, [config]];
  let output = '';
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await outputLine(child, () => output, READY, { what: 'pgbouncer', deadlineMs: 10_000 }).catch(
    (error: unknown) => {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
      throw error;
    },
  );
  return {
    urlOf(database) {
      return `postgres://dea@127.0.0.1:${port}/${database}`;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // runuser passes SIGTERM on to PgBouncer, which then stops at once.
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
