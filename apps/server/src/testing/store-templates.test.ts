import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, inject } from 'vitest';
import { EMBEDDED_STORE_FILE, openStore } from '../store/open-store.js';
import { storeTest } from './fixtures.js';
import { createTestDatabase } from './postgres-cluster.js';
import { dumpStore, type StoreDump } from './store-dump.js';
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
