import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startServices } from '../bootstrap.js';
import { runCli } from '../cli/run.js';
import { createTestDatabase, testPool } from '../testing/postgres-cluster.js';
import { testConfig } from '../testing/test-app.js';
import { storeConnectionError } from './connection-errors.js';
import { migrationProvider, MIGRATION_NAMES, releaseOf, withReleases } from './migrations/index.js';
import { EMBEDDED_STORE_FILE, openStore } from './open-store.js';
import { StoreError } from './store-error.js';

const SECRET = Buffer.alloc(32, 7).toString('base64');
const folders: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dea-schema-'));
  folders.push(dir);
  return dir;
};
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function dea(
  databaseUrl: string,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: {
      DATABASE_URL: databaseUrl,
      DEA_SECRET: SECRET,
      DEA_DATA_DIR: folder(),
      DEA_PASSWORD_HASH_COST: '10',
    },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ tablename: string }>(
    "select tablename from pg_tables where schemaname = 'public' order by tablename",
  );
  await client.end();
  return rows.map((row) => row.tablename);
}

/** A database migrated only up to `name`, as an older version left it. */
async function migratedUpTo(url: string, name: string): Promise<void> {
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: testPool(url) }),
  });
  await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
  await db.destroy();
}

describe('the schema on PostgreSQL', () => {
  it('is never set up by a CLI command but dea migrate, which --dry-run only describes', async () => {
    const database = await createTestDatabase(inject('postgresUrl'));
    try {
      const listed = await dea(database.url, 'user', 'list');
      expect(listed.code).toBe(1);
      expect(listed.err).toContain('the store is empty');
      expect(listed.err).toContain('dea migrate');
      expect(await tablesOf(database.url)).toEqual([]);

      const dry = await dea(database.url, 'migrate', '--dry-run');
      expect(dry).toMatchObject({
        code: 0,
        out: `The schema is at empty; dea migrate would apply: ${withReleases(MIGRATION_NAMES)}.`,
      });
      expect(await tablesOf(database.url)).toEqual([]);

      expect(await dea(database.url, 'migrate')).toMatchObject({
        code: 0,
        out: expect.stringContaining('Applied 0001-initial'),
      });
      expect(await dea(database.url, 'migrate')).toMatchObject({
        code: 0,
        out: expect.stringContaining('up to date'),
      });
      expect(await dea(database.url, 'user', 'list')).toMatchObject({ code: 0, out: 'No users.' });
    } finally {
      await database.drop();
    }
  });

  it('behind this version: CLI commands and a server with DEA_MIGRATE=off refuse, naming what is pending; a server migrates', async () => {
    const database = await createTestDatabase(inject('postgresUrl'));
    try {
      await migratedUpTo(database.url, MIGRATION_NAMES[1] ?? '');
      const refused = await dea(database.url, 'group', 'list');
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`store: ${MIGRATION_NAMES[1]}`);
      expect(refused.err).toContain(`pending: ${MIGRATION_NAMES.slice(2).join(', ')}`);
      await expect(startServices(testConfig({ DEA_MIGRATE: 'off' }, folder(), database.url))).rejects.toThrow(
        /schema is behind this version/,
      );
      const said: { fields: unknown; message: string }[] = [];
      const log = {
        info: (fields: unknown, message: string) => said.push({ fields, message }),
        warn: () => undefined,
      } as unknown as Parameters<typeof startServices>[2];
      const { services } = await startServices(testConfig({}, folder(), database.url), Date.now, log);
      expect((await services.store.schema.state()).pending).toEqual([]);
      // The start names each change it applied and the release that made it.
      const applied = MIGRATION_NAMES.slice(2);
      expect(said).toContainEqual({
        fields: { migrations: applied, releases: [...new Set(applied.map(releaseOf))] },
        message: `schema changes applied: ${withReleases(applied)}`,
      });
      expect(withReleases(applied)).toMatch(/ \(release [^)]+\)$/);
      await services.store.close();
    } finally {
      await database.drop();
    }
  });

  it('migrated by a newer version: refused by the server and the CLI, naming both versions, changing nothing', async () => {
    const database = await createTestDatabase(inject('postgresUrl'));
    try {
      await migratedUpTo(database.url, MIGRATION_NAMES.at(-1) ?? '');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(
        "insert into kysely_migration (name, timestamp) values ('9999-from-the-future', 'x')",
      );
      await client.end();
      const expected = `its schema is at 9999-from-the-future, this version knows up to ${MIGRATION_NAMES.at(-1)}`;
      await expect(startServices(testConfig({}, folder(), database.url))).rejects.toThrow(expected);
      expect((await dea(database.url, 'user', 'list')).err).toContain(expected);
      expect((await dea(database.url, 'migrate')).err).toContain('newer version');
    } finally {
      await database.drop();
    }
  });

  it('names the cause and the setting when the database cannot be used', async () => {
    const base = new URL(inject('postgresUrl'));
    const at = (change: (url: URL) => void) => {
      const url = new URL(base);
      change(url);
      return url.toString();
    };
    const failures = [
      [
        at((url) => (url.pathname = '/no_such_database')),
        /database "no_such_database" does not exist .*createdb no_such_database.*DATABASE_URL/,
      ],
      [at((url) => (url.username = 'nobody_here')), /refused user "nobody_here".*DATABASE_URL/],
      [
        at((url) => (url.port = '1')),
        /nothing answers at 127\.0\.0\.1:1 \(connection refused\).*DATABASE_URL/,
      ],
    ] as const;
    for (const [databaseUrl, message] of failures) {
      const failure = await openStore({ databaseUrl, dataDir: folder() }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreError);
      expect((failure as Error).message).toMatch(message);
      expect((failure as Error).message).not.toContain('store migration');
    }
    // A wrong password (this test cluster trusts every local user, so the server's answer is made here).
    const wrongPassword = Object.assign(new Error('password authentication failed for user "dea"'), {
      code: '28P01',
    });
    expect(
      storeConnectionError(wrongPassword, {
        databaseUrl: 'postgres://dea:x@db.example:5433/dea',
        dataDir: '',
      }).message,
    ).toBe(
      'PostgreSQL at db.example:5433 refused the password of user "dea": check the password in DATABASE_URL',
    );
  });
});

describe('the embedded store schema', () => {
  it('migrated by a newer version: refused by the CLI and the server', async () => {
    const dataDir = folder();
    await (await openStore({ dataDir })).close();
    const file = new SqliteDatabase(join(dataDir, EMBEDDED_STORE_FILE));
    file.prepare("insert into kysely_migration (name, timestamp) values ('9999-from-the-future', 'x')").run();
    file.close();
    const out: string[] = [];
    const code = await runCli(['user', 'list'], {
      env: { DEA_SECRET: SECRET, DEA_DATA_DIR: dataDir },
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    expect(code).toBe(1);
    expect(out.join('\n')).toContain('migrated by a newer version of Emergency Access');
    await expect(startServices(testConfig({}, dataDir))).rejects.toThrow('newer version');
  });
});
