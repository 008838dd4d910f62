import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  startPostgresCluster,
  type PostgresCluster,
} from './testing/postgres-cluster.js';
import { exitOf, spawnServerProcess, startServerProcess, type RunningServer } from './testing/processes.js';

const SECRET = Buffer.alloc(32, 9).toString('base64');
const UNAVAILABLE_DE =
  'Der Dienst ist vorübergehend nicht verfügbar. Bitte versuchen Sie es in einigen Minuten erneut.';

/** Runs `statement` on the cluster as its superuser. */
async function admin(cluster: PostgresCluster, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A light load on the server: sign-ins (store writes) and reads, one after another, until stopped;
 * `answered(count)` resolves once `count` more answers have come since it was called.
 */
function lightLoad(server: RunningServer): {
  answered(count: number): Promise<void>;
  stop(): Promise<number[]>;
} {
  const statuses: number[] = [];
  const waiting = new Set<() => void>();
  let running = true;
  const loop = (async () => {
    for (let index = 0; running; index += 1) {
      try {
        const response = await fetch(`${server.base}/login/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: `load-${index}`, password: 'x' }),
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      } catch {
        statuses.push(0);
      }
      for (const check of waiting) check();
    }
  })();
  return {
    answered(count) {
      const until = statuses.length + count;
      return new Promise((resolve) => {
        const check = (): void => {
          if (statuses.length < until) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
      });
    },
    async stop() {
      running = false;
      await loop;
      return statuses;
    },
  };
}

/** Fault tests against a PostgreSQL server of their own: its restarts must not touch other tests. */
describe('the server when PostgreSQL fails', () => {
  let cluster: PostgresCluster;
  let databaseUrl: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-faults-'));
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    databaseUrl = (await createTestDatabase(cluster.url)).url;
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const env = () => ({
    DATABASE_URL: databaseUrl,
    DEA_SECRET: SECRET,
    DEA_DATA_DIR: dataDir,
    DEA_DB_POOL_SIZE: '4',
    DEA_CATALOG_CACHE_SECONDS: '0',
    DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '10000',
    DEA_LOG_LEVEL: 'info',
  });

  /** A start that may not wait for the store: what it printed when it stopped, or 'it started'. */
  const startWithoutWaiting = (): Promise<string> =>
    startServerProcess({ ...env(), DEA_DB_START_WAIT_SECONDS: '0' }).then(
      (running) => {
        running.child.kill('SIGKILL');
        return 'it started';
      },
      (error: Error) => error.message,
    );

  it('waits for a PostgreSQL that is not up yet, saying why, and starts once it is; without a wait it stops at once', async () => {
    await cluster.shutDown();
    try {
      const refused = await startWithoutWaiting();
      expect(refused).toMatch(/server exited with 1/);
      expect(refused).toMatch(/nothing answers at 127\.0\.0\.1:\d+ \(connection refused\).*DATABASE_URL/);

      const starting = spawnServerProcess({ ...env(), DEA_DB_START_WAIT_SECONDS: '60' });
      await starting.said(/the store cannot be used yet; trying again in/);
      await cluster.startUp();
      const server = await starting.running;
      try {
        expect(server.output()).toContain('the store cannot be used yet; trying again in');
        expect(server.output()).toContain('connection refused');
        expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
      } finally {
        const stopped = exitOf(server.child);
        server.child.kill('SIGTERM');
        await stopped;
      }
    } finally {
      await cluster.startUp().catch(() => undefined);
    }
  }, 60_000);

  it('bounds every call while PostgreSQL is frozen: 503 within the timeouts, and serves again once it thaws', async () => {
    const server = await startServerProcess({
      ...env(),
      DEA_DB_STATEMENT_TIMEOUT_MS: '1000',
      DEA_DB_CONNECT_TIMEOUT_MS: '1000',
    });
    try {
      cluster.freeze();
      try {
        const answers = await Promise.all(
          Array.from({ length: 8 }, async (_, index) => {
            const response = await fetch(`${server.base}/login/api/session`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ username: `frozen-${index}`, password: 'x' }),
            });
            return { status: response.status, retryAfter: response.headers.get('retry-after') };
          }),
        );
        // Each gave up after its statement bound (1 s + the client's 2 s grace), some behind another:
        // they all answered while PostgreSQL was still frozen (it thaws only below). How long that
        // takes is for benchmarks, not for an assertion on the wall clock.
        for (const answer of answers)
          expect(answer).toMatchObject({ status: 503, retryAfter: expect.any(String) });
        expect((await fetch(`${server.base}/readyz`)).status).toBe(503);
      } finally {
        cluster.thaw();
      }
      await expect
        .poll(async () => (await fetch(`${server.base}/readyz`)).status, { timeout: 15_000, interval: 250 })
        .toBe(200);
      const after = await fetch(`${server.base}/login/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'thawed', password: 'x' }),
      });
      expect(await after.json()).toMatchObject({ error: 3 });
      expect(server.child.exitCode).toBeNull();
    } finally {
      const stopped = exitOf(server.child);
      server.child.kill('SIGTERM');
      await stopped;
    }
  }, 60_000);

  it('answers 503 while PostgreSQL takes no writes (a standby after a failover), a start waits for it, and both serve once it does', async () => {
    const server = await startServerProcess(env());
    const signIn = (username: string) =>
      fetch(`${server.base}/login/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept-language': 'de' },
        body: JSON.stringify({ username, password: 'x' }),
      });
    try {
      expect(await (await signIn('before')).json()).toMatchObject({ error: 3 });
      // Every session of the server, the pool's included, turns read-only at its next statement.
      await admin(cluster, 'alter system set default_transaction_read_only = on');
      await admin(cluster, 'select pg_reload_conf()');
      let during: Response | undefined;
      await expect
        .poll(async () => (during = await signIn('during')).status, { timeout: 10_000, interval: 200 })
        .toBe(503);
      expect(Number(during?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await during?.json()).toMatchObject({ message: UNAVAILABLE_DE });
      expect(server.output()).toContain('"errorCode":"25006"');
      // A server started meanwhile names the cause and the setting, and waits for the primary.
      const refused = await startWithoutWaiting();
      expect(refused).toMatch(/server exited with 1/);
      expect(refused).toMatch(/takes no writes .*point DATABASE_URL at the primary/);
      const waiting = spawnServerProcess({ ...env(), DEA_DB_START_WAIT_SECONDS: '60' });
      await waiting.said(/the store cannot be used yet; trying again in/);
      await admin(cluster, 'alter system reset default_transaction_read_only');
      await admin(cluster, 'select pg_reload_conf()');
      const second = await waiting.running;
      try {
        expect(second.output()).toContain('the store cannot be used yet; trying again in');
        expect((await fetch(`${second.base}/readyz`)).status).toBe(200);
      } finally {
        const stopped = exitOf(second.child);
        second.child.kill('SIGTERM');
        await stopped;
      }
      await expect
        .poll(async () => await (await signIn('after')).json(), {
          timeout: 10_000,
          interval: 200,
        })
        .toMatchObject({ error: 3 });
      expect(server.child.exitCode).toBeNull();
    } finally {
      await admin(cluster, 'alter system reset default_transaction_read_only').catch(() => undefined);
      await admin(cluster, 'select pg_reload_conf()').catch(() => undefined);
      const stopped = exitOf(server.child);
      server.child.kill('SIGTERM');
      await stopped;
    }
  }, 60_000);

  it('survives ended connections and a restart of PostgreSQL under load, answers 503 meanwhile, and serves again without a restart', async () => {
    const server = await startServerProcess(env());
    try {
      const load = lightLoad(server);
      await load.answered(5);
      // An administrator ends every connection of the product, in use or idle.
      await admin(
        cluster,
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${new URL(databaseUrl).pathname.slice(1)}'`,
      );
      await load.answered(5);
      // A restart (fast: connections in use are ended), as in a failover.
      await cluster.shutDown();
      const during = await fetch(`${server.base}/login/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept-language': 'de' },
        body: JSON.stringify({ username: 'during', password: 'x' }),
      });
      expect(during.status).toBe(503);
      expect(Number(during.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await during.json()).toMatchObject({ message: UNAVAILABLE_DE });
      expect((await fetch(`${server.base}/readyz`)).status).toBe(503);
      await cluster.startUp();
      await expect
        .poll(async () => (await fetch(`${server.base}/readyz`)).status, { timeout: 10_000, interval: 200 })
        .toBe(200);
      // Idle connections the server ends on its own (idle_session_timeout) are replaced too. The
      // setting holds for sessions that begin after it: the server's are ended once more, the load
      // goes on on new ones, then stops; once PostgreSQL has ended one left idle, a sign-in follows.
      await admin(
        cluster,
        `alter database ${new URL(databaseUrl).pathname.slice(1)} set idle_session_timeout = '300ms'`,
      );
      await admin(
        cluster,
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${new URL(databaseUrl).pathname.slice(1)}'`,
      );
      await load.answered(5);
      const idleEnded = (): number => cluster.log().split('idle-session timeout').length;
      const endedBefore = idleEnded();
      const statuses = await load.stop();
      await expect
        .poll(idleEnded, { timeout: 20_000, interval: 50 })
        .toBeGreaterThan(endedBefore)
        .catch((error: unknown) => {
          throw new Error(`PostgreSQL ended no idle session:\n${cluster.log().slice(-3000)}`, {
            cause: error,
          });
        });
      expect(server.child.exitCode).toBeNull();
      // Every answer was a clean one: an envelope answer (200) or 503, never a dropped connection.
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      // Serves again without a restart: a sign-in that meets a connection PostgreSQL has just
      // ended is answered 503 (asserted clean above); the next ones are checked as usual.
      const after = async () =>
        (
          (await (
            await fetch(`${server.base}/login/api/session`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ username: 'after', password: 'x' }),
            })
          ).json()) as { error: number }
        ).error;
      await expect.poll(after).toBe(3);
      expect(server.output()).not.toMatch(/Unhandled 'error' event|uncaughtException/);
    } finally {
      await admin(
        cluster,
        `alter database ${new URL(databaseUrl).pathname.slice(1)} reset idle_session_timeout`,
      ).catch(() => undefined);
      const stopped = exitOf(server.child);
      server.child.kill('SIGTERM');
      await stopped;
    }
  }, 60_000);
});
