import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EMBEDDED_STORE_FILE, openStore } from '../store/open-store.js';
import { storeTest } from './fixtures.js';
import { createTestDatabase } from './postgres-cluster.js';
import { dumpStore, type StoreDump } from './store-dump.js';
import { leaseTestDatabase, makeStoreTemplates } from './store-templates.js';
import { STORE_KINDS } from './stores.js';

/** What a store is made of besides its rows: tables, columns, indexes, constraints, functions, triggers. */
async function schemaOf(store: { databaseUrl: string | undefined; dataDir: string }): Promise<unknown> {
  if (store.databaseUrl === undefined) {
    const database = new SqliteDatabase(join(store.dataDir, EMBEDDED_STORE_FILE), { readonly: true });
    try {
      return {
        objects: database
          .prepare('select type, name, tbl_name, sql from sqlite_master order by type, name')
          .all(),
        userVersion: database.pragma('user_version', { simple: true }),
      };
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: store.databaseUrl });
  await client.connect();
  try {
    const rows = async (text: string) => (await client.query(text)).rows as unknown[];
    return {
      columns: await rows(
        `select table_name, column_name, data_type, column_default, is_nullable, generation_expression
           from information_schema.columns where table_schema = 'public' order by table_name, column_name`,
      ),
      indexes: await rows(
        `select indexname, indexdef from pg_indexes where schemaname = 'public' order by indexname`,
      ),
      constraints: await rows(
        `select conrelid::regclass::text as on_table, conname, pg_get_constraintdef(oid) as definition
           from pg_constraint where connamespace = 'public'::regnamespace order by on_table, conname`,
      ),
      functions: await rows(
        `select proname, pg_get_functiondef(oid) as definition from pg_proc
           where pronamespace = 'public'::regnamespace order by proname, definition`,
      ),
      triggers: await rows(
        `select tgrelid::regclass::text as on_table, tgname from pg_trigger where not tgisinternal order by 1, 2`,
      ),
      views: await rows(`select viewname, definition from pg_views where schemaname = 'public' order by 1`),
      sequences: await rows(
        `select sequencename, last_value from pg_sequences where schemaname = 'public' order by 1`,
      ),
      extensions: await rows(`select extname from pg_extension order by 1`),
      // What ALTER DATABASE ... SET would set: a template does not pass it on.
      databaseSettings: await rows(
        `select setconfig from pg_db_role_setting
           where setdatabase = (select oid from pg_database where datname = current_database())`,
      ),
    };
  } finally {
    await client.end();
  }
}

/** The rows, without the time each migration ran (the template's migrations ran earlier in the run). */
function rowsOf(dump: StoreDump): StoreDump {
  return Object.fromEntries(
    Object.entries(dump).map(([table, rows]) => [
      table,
      table === 'kysely_migration' ? rows.map((row) => ({ ...row, timestamp: undefined })) : rows,
    ]),
  );
}

describe.each(STORE_KINDS)("a test's fresh store on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'is what running every migration on an empty store makes: the same schema and the same rows',
    async ({ testStore }) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'dea-store-migrated-'));
      const database = kind === 'postgres' ? await createTestDatabase(inject('postgresUrl')) : undefined;
      try {
        const migrated = { dataDir, databaseUrl: database?.url };
        await (await openStore(migrated)).close();
        expect(await schemaOf(testStore)).toEqual(await schemaOf(migrated));
        const [copied, fresh] = [rowsOf(await dumpStore(testStore)), rowsOf(await dumpStore(migrated))];
        expect(Object.keys(copied).sort()).toEqual(Object.keys(fresh).sort());
        expect(copied).toEqual(fresh);
      } finally {
        await database?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

/** Each test makes a template of its own: the run's spares are shared with the other files' tests. */
async function withOwnTemplates(
  use: (templates: Awaited<ReturnType<typeof makeStoreTemplates>>) => Promise<void>,
) {
  const templates = await makeStoreTemplates(inject('postgresUrl'));
  try {
    await use(templates);
  } finally {
    await templates.drop();
  }
}

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

const databaseExists = async (name: string): Promise<boolean> =>
  (await query(inject('postgresUrl'), `select 1 from pg_database where datname = '${name}'`)).rowCount === 1;

describe.runIf(STORE_KINDS.includes('postgres'))('a PostgreSQL test database released by its test', () => {
  it('is emptied and given to the next test as a new copy of the template would be', async () => {
    await withOwnTemplates(async (templates) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'dea-store-reused-'));
      try {
        const first = await leaseTestDatabase(inject('postgresUrl'), templates);
        const store = await openStore({ dataDir, databaseUrl: first.url });
        await query(
          first.url,
          `insert into users (id, username, password_hash, full_name, locale, created_at)
             values ('u1', 'alice', 'h', 'Alice', 'en', 1)`,
        );
        // A connection its test left open (the store's pool here) does not keep it from reuse.
        await first.release();
        await store.close().catch(() => undefined);
        const [second, fresh] = [
          await leaseTestDatabase(inject('postgresUrl'), templates),
          await leaseTestDatabase(inject('postgresUrl'), templates),
        ];
        expect(second.name).toBe(first.name);
        expect(fresh.name).not.toBe(first.name);
        const [reused, copy] = [second, fresh].map((database) => ({ databaseUrl: database.url, dataDir }));
        expect(await schemaOf(reused!)).toEqual(await schemaOf(copy!));
        expect(await dumpStore(reused!)).toEqual(await dumpStore(copy!));
        await Promise.all([second.release(), fresh.release()]);
        expect(await databaseExists(first.name)).toBe(true);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }, 120_000);

  it("is emptied again on the connection its last emptying kept, and a test's connection left open is ended", async () => {
    await withOwnTemplates(async (templates) => {
      const connections = async (name: string) =>
        (
          await query(
            inject('postgresUrl'),
            `select pid, application_name from pg_stat_activity where datname = '${name}' order by pid`,
          )
        ).rows as { pid: number; application_name: string }[];
      const first = await leaseTestDatabase(inject('postgresUrl'), templates);
      await first.release();
      const kept = await connections(first.name);
      expect(kept).toEqual([{ pid: expect.any(Number), application_name: 'dea-test-emptying' }]);

      const second = await leaseTestDatabase(inject('postgresUrl'), templates);
      expect(second.name).toBe(first.name);
      const leftOpen = new pg.Client({ connectionString: second.url });
      const ended = new Promise<void>((resolve) => leftOpen.on('error', () => resolve()));
      await leftOpen.connect();
      await second.release();
      await ended;
      expect(await connections(second.name)).toEqual(kept);
      await leftOpen.end().catch(() => undefined);
    });
  }, 120_000);

  // One template of their own for the schema changes: each leaves at most a clean spare, which the
  // next one takes and changes (making a template runs every migration, 2 s a test).
  let schemaChangeTemplates: Awaited<ReturnType<typeof makeStoreTemplates>> | undefined;
  beforeAll(async () => {
    schemaChangeTemplates = await makeStoreTemplates(inject('postgresUrl'));
  }, 120_000);
  afterAll(async () => {
    await schemaChangeTemplates?.drop();
  });

  it.each([
    ['a table added', 'create table extra (x integer)'],
    ['a column added', 'alter table users add column extra text'],
    ['a constraint dropped', 'alter table users alter column full_name drop not null'],
    ['an index added', 'create index on users (locale)'],
    ['a function added', 'create function extra() returns integer language sql as $$ select 1 $$'],
    [
      'a trigger left behind',
      `create function refuse() returns trigger language plpgsql as $$ begin return null; end $$;
       create trigger refuse before update on groups for each row execute function refuse();
       drop function refuse() cascade;
       create function refuse() returns trigger language plpgsql as $$ begin return null; end $$;
       create trigger refuse before update on groups for each row execute function refuse()`,
    ],
    ['a view added', 'create view extra as select id from users'],
    [
      'a migration forgotten',
      'delete from kysely_migration where name = (select max(name) from kysely_migration)',
    ],
    ['a setting of the database', "alter database {name} set work_mem = '8MB'"],
  ])(
    'is dropped, not reused, when its test changed its schema: %s',
    async (_, change) => {
      const templates = schemaChangeTemplates!;
      const leased = await leaseTestDatabase(inject('postgresUrl'), templates);
      await query(leased.url, change.replace('{name}', leased.name));
      await leased.release();
      expect(await databaseExists(leased.name)).toBe(false);
      const next = await leaseTestDatabase(inject('postgresUrl'), templates);
      expect(next.name).not.toBe(leased.name);
      await next.release();
    },
    120_000,
  );
});
