import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { EMBEDDED_STORE_FILE, openStore } from '../store/open-store.js';

/**
 * A migrated store of each kind, made once per run by the global setup (testing/global-setup.ts):
 * a test's fresh store is a copy of it (the SQLite file copied, the PostgreSQL database made with
 * it as its TEMPLATE) and opens with nothing left to migrate. Running the 30-odd migrations for
 * every test's store cost about 25 ms of CPU on SQLite and 190 to 290 ms on PostgreSQL (client and
 * server), the copy 5 and 130 (docs/benchmarks.md). The migrations themselves are still run: here,
 * once per run and store kind, and by the tests that migrate a store of their own.
 */
export interface StoreTemplates {
  /** The migrated embedded store, to be copied into a test's data folder as EMBEDDED_STORE_FILE. */
  sqliteFile: string;
  /** The migrated PostgreSQL database (on the run's server) that a test's database is made from. */
  postgresDatabase: string;
}

export async function makeStoreTemplates(
  postgresUrl: string,
): Promise<StoreTemplates & { drop(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'dea-store-template-'));
  await (await openStore({ dataDir: folder })).close();
  const postgresDatabase = `dea_template_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(postgresUrl, `CREATE DATABASE ${postgresDatabase}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${postgresDatabase}`;
  // No connection to it may stay open: PostgreSQL copies a template nobody is connected to.
  await (await openStore({ dataDir: folder, databaseUrl: url.toString() })).close();
  return {
    sqliteFile: join(folder, EMBEDDED_STORE_FILE),
    postgresDatabase,
    async drop() {
      rmSync(folder, { recursive: true, force: true });
      await adminQuery(postgresUrl, `DROP DATABASE IF EXISTS ${postgresDatabase} WITH (FORCE)`);
    },
  };
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
