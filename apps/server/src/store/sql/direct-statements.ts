import type { QueryResult } from 'kysely';
import type { Db } from './db.js';

/**
 * The embedded store's one connection, as its statements compiled once reach it without Kysely's
 * executor: SQLite answers a statement synchronously, and Kysely's way to it (a connection
 * acquired behind a lock, the statement, the result's plugins, the release: a chain of promises
 * for each statement) cost more than many of the hot path's statements themselves
 * (ADR 0024).
 */
export interface DirectStatements {
  /**
   * Whether a statement of the store itself (not of a transaction) may run now: no transaction
   * and no query of Kysely holds the connection, and no other store of this process holds the file.
   */
  isFree(): boolean;
  /** Runs one statement now, with the answer Kysely's SQLite connection would give. */
  run<R>(sql: string, parameters: readonly unknown[]): QueryResult<R>;
}

const DIRECT = new WeakMap<Db, DirectStatements>();
/** Transactions open now, each with the direct way of the store whose transaction it is. */
const OPEN = new WeakMap<Db, DirectStatements>();

/** Called once by the store that owns `db` (open-store.ts, the embedded store only). */
export function registerDirectStatements(db: Db, direct: DirectStatements): void {
  DIRECT.set(db, direct);
}

/** The direct way to `db`'s connection; undefined for PostgreSQL and any Kysely of tests. */
export function directStatementsOf(db: Db): DirectStatements | undefined {
  return DIRECT.get(db);
}

/**
 * Runs `work` on `trx`, a transaction of `db` (its callback's argument), known while `work` runs as
 * open: the statements compiled once of `db` run in it at once. Anything else (a transaction of
 * another Kysely, one used after `work` ended, one never told) goes Kysely's way, which refuses a
 * transaction already committed or rolled back.
 */
export async function inOpenTransaction<T>(db: Db, trx: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  const direct = DIRECT.get(db);
  if (direct === undefined) return work(trx);
  OPEN.set(trx, direct);
  try {
    return await work(trx);
  } finally {
    OPEN.delete(trx);
  }
}

/** Whether `trx` is an open transaction of the store whose direct way is `direct`. */
export function isOpenTransactionOf(trx: Db, direct: DirectStatements): boolean {
  return OPEN.get(trx) === direct;
}
