import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { EMBEDDED_STORE_FILE } from '../store/open-store.js';
import type { TestStore } from './stores.js';

/** Every row of every table of a store, read with raw SQL beside the store (a real dump). */
export type StoreDump = Record<string, Record<string, unknown>[]>;

export async function dumpStore(testStore: Pick<TestStore, 'databaseUrl' | 'dataDir'>): Promise<StoreDump> {
  const dump: StoreDump = {};
  if (testStore.databaseUrl === undefined) {
    const database = new SqliteDatabase(join(testStore.dataDir, EMBEDDED_STORE_FILE), { readonly: true });
    try {
      const tables = database
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
        .all() as { name: string }[];
      for (const { name } of tables) {
        dump[name] = database.prepare(`select * from "${name}"`).all() as Record<string, unknown>[];
      }
    } finally {
      database.close();
    }
    return dump;
  }
  const client = new pg.Client({ connectionString: testStore.databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    for (const { table_name: name } of tables.rows) {
      dump[name] = (await client.query(`select * from "${name}"`)).rows as Record<string, unknown>[];
    }
  } finally {
    await client.end();
  }
  return dump;
}

/**
 * The seal of the audit trail (ADR 0018): its places and chain values, and the signed head, which
 * a running server adds in the background to entries already written. A request that changes
 * nothing leaves everything else as it was; these move on their own.
 */
const SEAL_COLUMNS = ['seq', 'chain', 'chain_key'];
const SEAL_TABLE = 'audit_chain';

/**
 * The dump as one text: what `grep` over a database dump would search, and what a refused request
 * must leave as it was (the trail's seal, which moves on its own, left out).
 */
export async function dumpStoreText(testStore: TestStore): Promise<string> {
  const dump = await dumpStore(testStore);
  delete dump[SEAL_TABLE];
  dump.audit_log = (dump.audit_log ?? []).map((row) =>
    Object.fromEntries(Object.entries(row).filter(([column]) => !SEAL_COLUMNS.includes(column))),
  );
  return JSON.stringify(dump);
}

/** Runs one statement with raw SQL beside the store (to stage what no store method does). */
export async function execRaw(
  testStore: TestStore,
  statement: string,
  params: unknown[] = [],
): Promise<void> {
  if (testStore.databaseUrl === undefined) {
    const database = new SqliteDatabase(join(testStore.dataDir, EMBEDDED_STORE_FILE));
    try {
      database.pragma('busy_timeout = 5000');
      database.prepare(statement.replace(/\$\d+/g, '?')).run(...params);
    } finally {
      database.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: testStore.databaseUrl });
  await client.connect();
  try {
    await client.query(statement, params);
  } finally {
    await client.end();
  }
}
