import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, inject } from 'vitest';
import { createTestDatabase, testPool } from '../testing/postgres-cluster.js';
import type { StoreKind } from '../testing/stores.js';
import { migrationProvider } from './migrations/index.js';
import { EMBEDDED_STORE_FILE } from './open-store.js';

export const SECRET = Buffer.alloc(32, 3).toString('base64');
export const NOW = Date.now();

/** An empty store, migrated up to a named migration as an older release did. */
export interface EmptyStore {
  databaseUrl: string | undefined;
  dataDir: string;
  migrateTo(name: string): Promise<void>;
  /** Writes rows as an older release did, whatever this version's store code does. */
  insert(table: string, rows: Record<string, unknown>[]): Promise<void>;
  drop(): Promise<void>;
}

/**
 * Answers the maker of empty stores for the calling test file; their folders are removed after
 * that file's tests.
 */
export function emptyStores(): (kind: StoreKind) => Promise<EmptyStore> {
  const folders: string[] = [];
  afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** An empty store of the kind, and a way to migrate it up to a named migration as an older release did. */
  async function emptyStore(kind: StoreKind): Promise<EmptyStore> {
    const dataDir = mkdtempSync(join(tmpdir(), 'dea-upgrade-'));
    folders.push(dataDir);
    const database = kind === 'postgres' ? await createTestDatabase(inject('postgresUrl')) : undefined;
    // oxlint-disable-next-line typescript/no-explicit-any -- rows of an older schema, by table name
    const connect = (): Kysely<any> =>
      new Kysely({
        dialect:
          database === undefined
            ? new SqliteDialect({ database: new SqliteDatabase(join(dataDir, EMBEDDED_STORE_FILE)) })
            : new PostgresDialect({ pool: testPool(database.url) }),
      });
    return {
      databaseUrl: database?.url,
      dataDir,
      async migrateTo(name) {
        const db = connect();
        const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
        await db.destroy();
        if (error !== undefined)
          throw error instanceof Error ? error : new Error(`migration to ${name} failed`);
      },
      async insert(table, rows) {
        const db = connect();
        await db.insertInto(table).values(rows).execute();
        await db.destroy();
      },
      drop: async () => database?.drop(),
    };
  }

  return emptyStore;
}
