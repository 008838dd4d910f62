import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { vi } from 'vitest';

/**
 * The SQL that the embedded store prepares from now on, in order (better-sqlite3 prepares each
 * statement once per text). `vi.restoreAllMocks()` ends the recording.
 */
export function recordSqlitePrepares(): string[] {
  const prepared: string[] = [];
  const original = Object.getOwnPropertyDescriptor(SqliteDatabase.prototype, 'prepare')?.value as (
    this: SqliteDatabase.Database,
    source: string,
  ) => SqliteDatabase.Statement;
  vi.spyOn(SqliteDatabase.prototype, 'prepare').mockImplementation(function (
    this: SqliteDatabase.Database,
    source: string,
  ) {
    prepared.push(source);
    return original.call(this, source);
  });
  return prepared;
}

export interface RecordedQuery {
  /** The prepared statement's name; undefined for a plain statement. */
  name: string | undefined;
  text: string;
  values: unknown;
}

/**
 * The statements that every `pg` client of this process is asked to run until `stop()` (other
 * tests may run beside: filter by what they carry).
 */
export function recordPostgresQueries(): { queries: RecordedQuery[]; stop(): void } {
  const seen: RecordedQuery[] = [];
  const original = Object.getOwnPropertyDescriptor(pg.Client.prototype, 'query')?.value as (
    this: pg.Client,
    ...args: unknown[]
  ) => unknown;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const [first, second] = args;
    if (typeof first === 'string') seen.push({ name: undefined, text: first, values: second });
    else if (typeof first === 'object' && first !== null && 'text' in first) {
      // A named prepared statement comes as one object with its values.
      const config = first as { name?: string; text: string; values?: unknown };
      seen.push({ name: config.name, text: config.text, values: second ?? config.values });
    }
    return original.apply(this, args) as never;
  });
  return { queries: seen, stop: () => spy.mockRestore() };
}

/**
 * How many statements the embedded store runs until `stop()` (each run, get, all or iterate of a
 * prepared statement, in every database of this process), with their SQL in order.
 */
export function recordSqliteRuns(): { runs: string[]; stop(): void } {
  const runs: string[] = [];
  const probe = new SqliteDatabase(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    'run' | 'get' | 'all' | 'iterate',
    (this: SqliteDatabase.Statement, ...args: unknown[]) => unknown
  >;
  probe.close();
  const spies = (['run', 'get', 'all', 'iterate'] as const).map((method) => {
    const original = statementPrototype[method];
    return vi.spyOn(statementPrototype, method).mockImplementation(function (
      this: SqliteDatabase.Statement,
      ...args: unknown[]
    ) {
      runs.push(this.source);
      return original.apply(this, args);
    });
  });
  return { runs, stop: () => spies.forEach((spy) => spy.mockRestore()) };
}

/** The statements a store of either kind runs until `stop()`, their SQL in order. */
export function recordStatements(kind: 'sqlite' | 'postgres'): { texts(): string[]; stop(): void } {
  if (kind === 'postgres') {
    const recorded = recordPostgresQueries();
    return { texts: () => recorded.queries.map((query) => query.text), stop: () => recorded.stop() };
  }
  const recorded = recordSqliteRuns();
  return { texts: () => recorded.runs, stop: () => recorded.stop() };
}

/** SQLite's plan of a statement on the embedded store in `dataDir`, one line per step. */
export function sqlitePlanOf(dataDir: string, source: string): string[] {
  const database = new SqliteDatabase(join(dataDir, 'dea.sqlite'), { readonly: true });
  try {
    const parameters = new Array<number>(source.split('?').length - 1).fill(0);
    const rows = database.prepare(`explain query plan ${source}`).all(...parameters) as { detail: string }[];
    return rows.map((row) => row.detail);
  } finally {
    database.close();
  }
}
