import { usernameOrThrow } from '@dea/contract';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import { startPgBouncer, type PgBouncer } from '../testing/pgbouncer.js';
import { createTestDatabase } from '../testing/postgres-cluster.js';
import { MIGRATION_NAMES } from './migrations/index.js';
import { openStore } from './open-store.js';

/** Advisory locks held on the server of `url`'s database, by anyone. */
async function advisoryLocks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>(
      // This test's database only: the run's other files share the PostgreSQL server and migrate
      // their own databases at the same time.
      `select count(*) as n from pg_locks
        where locktype = 'advisory'
          and database = (select oid from pg_database where datname = current_database())`,
    );
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/** How large PostgreSQL deployments run: every connection through PgBouncer, pooled by transaction. */
describe('behind PgBouncer in transaction pooling mode', () => {
  let bouncer: PgBouncer;
  let database: { url: string; drop(): Promise<void> };
  let bouncedUrl: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-pgbouncer-store-'));

  beforeAll(async () => {
    database = await createTestDatabase(inject('postgresUrl'));
    bouncer = await startPgBouncer(inject('postgresUrl'));
    bouncedUrl = bouncer.urlOf(new URL(database.url).pathname.slice(1));
  });
  afterAll(async () => {
    await bouncer.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrates once when two servers and four CLI commands start together: none fails, and no lock stays', async () => {
    const stores = await Promise.all(
      Array.from({ length: 6 }, () => openStore({ dataDir, databaseUrl: bouncedUrl, poolSize: 2 })),
    );
    try {
      for (const store of stores) expect((await store.schema.state()).pending).toEqual([]);
      const applied = await stores[0]?.schema.state();
      expect(applied?.applied).toEqual([...MIGRATION_NAMES]);
      expect(await advisoryLocks(database.url)).toBe(0);
      // Started again, nothing is pending: no lock is even asked for.
      const again = await openStore({ dataDir, databaseUrl: bouncedUrl, poolSize: 1 });
      await again.close();
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('works with the client-side bound when the server-side timeouts are off (DEA_DB_SERVER_TIMEOUTS=off)', async () => {
    const timeouts = { connectMs: 2000, statementMs: 3000, lockMs: 1000 };
    const store = await openStore({
      dataDir,
      databaseUrl: bouncedUrl,
      poolSize: 2,
      timeouts: { ...timeouts, serverSide: false },
    });
    await store.ping();
    await store.close();
    const refused = await openStore({
      dataDir,
      databaseUrl: bouncedUrl,
      poolSize: 2,
      timeouts: { ...timeouts, serverSide: true },
    }).then(
      async (opened) => {
        await opened.close();
        return 'opened';
      },
      (error: Error) => error.message,
    );
    expect(refused).toMatch(
      /PgBouncer\) refuses the connection parameter statement_timeout: set DEA_DB_SERVER_TIMEOUTS=off/,
    );
  });

  it('answers every hot read right when DEA_DB_PREPARED_STATEMENTS was left on before PgBouncer 1.21', async () => {
    const warnings: string[] = [];
    const open = () =>
      openStore({
        dataDir,
        databaseUrl: bouncedUrl,
        poolSize: 4,
        preparedStatements: { enabled: true, onTurnedOff: (cause) => warnings.push(cause) },
      });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      const users = await Promise.all(
        Array.from({ length: 10 }, async (_, index) => {
          const userId = newId();
          await a.users.create({
            id: userId,
            username: usernameOrThrow(`prepared-${userId}`),
            passwordHash: 'x',
            fullName: `User ${index}`,
            locale: 'en',
            createdAt: 1,
          });
          const idHash = newId();
          await a.sessions.create({ idHash, userId, createdAt: 1, lastSeenAt: 1 });
          await a.channels.set({
            id: newId(),
            userId,
            key: 'email',
            address: `${index}@example.com`,
            createdAt: 1,
          });
          return { userId, idHash, index };
        }),
      );
      // Rounds of reads in separate turns, on both instances: PgBouncer hands each transaction to
      // whichever server connection is free, not the one that parsed the statement.
      for (let round = 0; round < 10; round += 1) {
        const answers = await Promise.all(
          users.flatMap(({ userId, idHash, index }) => [
            (round % 2 === 0 ? a : b).sessions
              .find(idHash)
              .then((found) => found?.user?.fullName === `User ${index}`),
            (round % 2 === 0 ? b : a).channels
              .listOfUser(userId)
              .then((channels) => channels.length === 1 && channels[0]?.address === `${index}@example.com`),
          ]),
        );
        expect(answers.every(Boolean)).toBe(true);
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Each instance says so at most once, naming what PgBouncer answered.
      expect(warnings.length).toBeLessThanOrEqual(2);
      for (const warning of warnings) expect(warning).toMatch(/^(26000|42P05): prepared statement/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("keeps the store's limits: 20 parallel codes for one user over two instances, limit 5", async () => {
    const [a, b] = await Promise.all([
      openStore({ dataDir, databaseUrl: bouncedUrl, poolSize: 4 }),
      openStore({ dataDir, databaseUrl: bouncedUrl, poolSize: 4 }),
    ]);
    try {
      const userId = newId();
      await a.users.create({
        id: userId,
        username: usernameOrThrow(`bounced-${userId}`),
        passwordHash: 'x',
        fullName: 'Through PgBouncer',
        locale: 'en',
        createdAt: Date.now(),
      });
      const now = Date.now();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? a : b).codes.issue(
            {
              id: newId(),
              userId,
              codeHash: `hash-${index}`,
              createdAt: now,
              expiresAt: now + 600_000,
              uses: 1,
              channelType: null,
            },
            5,
            { event: 'code.issued', userId, actor: userId, clientAddress: null, details: {} },
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.issued)).toHaveLength(5);
      expect(await b.codes.countActive(userId, now)).toBe(5);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
