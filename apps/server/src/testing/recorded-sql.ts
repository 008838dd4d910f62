import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

/**
 * Where a method's recorder keeps its open recordings: on the prototype it wraps, under a key that
 * every copy of this module shares. `pg` and `better-sqlite3` are loaded once per worker process,
 * whatever the test files' own module graphs, so one wrapper per method serves every file and
 * every test of the worker, concurrent ones included.
 */
const RECORDERS = Symbol.for('dea.testing.recorded-sql');

type Sink = (entry: unknown) => void;

/**
 * The open recordings of `target[method]`, whose calls each `entryOf` turns into an entry (or
 * nothing) for every open recording. The method is wrapped once per process and the wrapper stays:
 * not a Vitest spy, so `vi.restoreAllMocks()` leaves it, two recordings never stack wrappers (a
 * spy over a spy called itself without end), and one test's recording never replaces another's.
 */
function recorderOf(
  target: object,
  method: string,
  entryOf: (self: unknown, args: unknown[]) => unknown,
): Set<Sink> {
  const holder = target as Record<symbol, Map<string, Set<Sink>> | undefined> &
    Record<string, (...args: unknown[]) => unknown>;
  let recorders = holder[RECORDERS];
  if (recorders === undefined) {
    recorders = new Map();
    Object.defineProperty(target, RECORDERS, { value: recorders });
  }
  const existing = recorders.get(method);
  if (existing !== undefined) return existing;
  const sinks = new Set<Sink>();
  const original = holder[method]!;
  Object.defineProperty(target, method, {
    configurable: true,
    writable: true,
    value: function recorded(this: unknown, ...args: unknown[]): unknown {
      if (sinks.size > 0) {
        const entry = entryOf(this, args);
        if (entry !== undefined) for (const sink of sinks) sink(entry);
      }
      return original.apply(this, args);
    },
  });
  recorders.set(method, sinks);
  return sinks;
}

/** A recording opened now: `entries` grows until `stop()`. */
function openRecording<T>(sinkSets: Set<Sink>[]): { entries: T[]; stop: () => void } {
  const entries: T[] = [];
  const sink: Sink = (entry) => entries.push(entry as T);
  for (const sinks of sinkSets) sinks.add(sink);
  return { entries, stop: () => sinkSets.forEach((sinks) => sinks.delete(sink)) };
}

/** The SQL that the embedded store prepares (better-sqlite3 prepares each text once) until `stop()`, in order. */
export function recordSqlitePrepares(): { sources: string[]; stop: () => void } {
  const recording = openRecording<string>([
    recorderOf(SqliteDatabase.prototype, 'prepare', (_self, [source]) => source),
  ]);
  return { sources: recording.entries, stop: recording.stop };
}

export interface RecordedQuery {
  /** The prepared statement's name; undefined for a plain statement. */
  name: string | undefined;
  text: string;
  values: unknown;
}

function queryOf(_self: unknown, [first, second]: unknown[]): RecordedQuery | undefined {
  if (typeof first === 'string') return { name: undefined, text: first, values: second };
  if (typeof first === 'object' && first !== null && 'text' in first) {
    // A named prepared statement comes as one object with its values.
    const config = first as { name?: string; text: string; values?: unknown };
    return { name: config.name, text: config.text, values: second ?? config.values };
  }
  return undefined;
}

/**
 * The statements that every `pg` client of this process is asked to run until `stop()` (other
 * tests may run beside, concurrent ones too: filter by what they carry).
 */
export function recordPostgresQueries(): { queries: RecordedQuery[]; stop: () => void } {
  const recording = openRecording<RecordedQuery>([recorderOf(pg.Client.prototype, 'query', queryOf)]);
  return { queries: recording.entries, stop: recording.stop };
}

/** The prototype of better-sqlite3's statements, which the library does not export. */
const statementPrototype = (() => {
  const probe = new SqliteDatabase(':memory:');
  try {
    return Object.getPrototypeOf(probe.prepare('select 1')) as object;
  } finally {
    probe.close();
  }
})();

/**
 * How many statements the embedded store runs until `stop()` (each run, get, all or iterate of a
 * prepared statement, in every database of this process), with their SQL in order.
 */
export function recordSqliteRuns(): { runs: string[]; stop: () => void } {
  const recording = openRecording<string>(
    (['run', 'get', 'all', 'iterate'] as const).map((method) =>
      recorderOf(statementPrototype, method, (self) => (self as SqliteDatabase.Statement).source),
    ),
  );
  return { runs: recording.entries, stop: recording.stop };
}

/** The statements a store of either kind runs until `stop()`, their SQL in order. */
export function recordStatements(kind: 'sqlite' | 'postgres'): { texts: () => string[]; stop: () => void } {
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
