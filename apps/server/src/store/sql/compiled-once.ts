import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import { PREPARED_MARK } from '../prepared-statements.js';
import type { Db } from './db.js';
import { directStatementsOf, isOpenTransactionOf } from './direct-statements.js';

/** Stands for a value given at each run, while the query is built and compiled once. */
class Slot {
  constructor(readonly name: string) {}
}

type Slots<P> = { readonly [K in keyof P]: P[K] };

export interface CompiledOnce<P, R> {
  /** Runs the query with these values, on the store or on a transaction of it. */
  run(db: Db, values: P): Promise<QueryResult<R>>;
}

/**
 * A query of a hot path, built and compiled to SQL once instead of on every call (Kysely builds an
 * operation tree and compiles it each time, a measurable part of a signed-in call). `build` gets
 * stand-ins for the values, in place of which each run's values go, in the order the SQL uses them.
 * `prepared`: on PostgreSQL a named prepared statement (prepared-statements.ts, whose conditions
 * it must meet). Built at its first run, not when the store is opened: a store makes about a
 * hundred of these, and a process that runs a few of them (a `dea` command, a test's store) would
 * otherwise build them all (about a tenth of a test's app).
 */
export function compiledOnce<P extends Record<string, unknown>, R>(
  db: Db,
  build: (values: Slots<P>) => Compilable<R>,
  options: { prepared?: boolean } = {},
): CompiledOnce<P, R> {
  let made: { compiled: CompiledQuery<R>; order: (string | { fixed: unknown })[] } | undefined;
  const make = (): NonNullable<typeof made> => {
    const stand = new Proxy({} as Slots<P>, {
      get: (_target, name) => new Slot(String(name)),
    });
    const built: CompiledQuery<R> = build(stand).compile();
    const compiled: CompiledQuery<R> = options.prepared
      ? { ...built, sql: `${PREPARED_MARK}${built.sql}` }
      : built;
    const order = compiled.parameters.map((parameter) =>
      parameter instanceof Slot ? parameter.name : { fixed: parameter },
    );
    return { compiled, order };
  };
  const direct = directStatementsOf(db);
  return {
    run(target, values) {
      const { compiled, order } = (made ??= make());
      const parameters = order.map((entry) => (typeof entry === 'string' ? values[entry] : entry.fixed));
      // On the embedded store, at once: inside an open transaction of the store (which holds the
      // one connection, so the statement runs in it, as Kysely would run it: inOpenTransaction), or
      // on the store while nothing holds the connection (a statement of the store must never run
      // inside another's open transaction).
      if (direct !== undefined && (target === db ? direct.isFree() : isOpenTransactionOf(target, direct))) {
        // Run now, in the promise's executor: SQLite's error (a constraint) rejects it, never throws.
        return new Promise((resolve) => resolve(direct.run<R>(compiled.sql, parameters)));
      }
      return target.executeQuery<R>({ ...compiled, parameters });
    },
  };
}
