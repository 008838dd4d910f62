import { sql } from 'kysely';
import { MIGRATION_NAMES, migrationProvider } from './migrations/index.js';
import type { Db, Dialect } from './sql/db.js';
import { codeOf, messageOf, StoreError } from './store-error.js';

/** Which migrations the store has had, against those this version knows. */
export interface SchemaState {
  applied: string[];
  known: readonly string[];
  pending: string[];
  /** Applied by a newer version: this one does not know them. */
  unknown: string[];
}

const last = (names: readonly string[]): string => names.at(-1) ?? 'none';

export async function schemaState(db: Db): Promise<SchemaState> {
  let applied: string[];
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    applied = rows.rows.map((row) => row.name);
  } catch (error) {
    // No migration table: a store no version has set up yet.
    const text = `${codeOf(error)} ${messageOf(error) ?? ''}`;
    if (!/42P01|no such table/i.test(text)) throw error;
    applied = [];
  }
  return {
    applied,
    known: MIGRATION_NAMES,
    pending: MIGRATION_NAMES.filter((name) => !applied.includes(name)),
    unknown: applied.filter((name) => !MIGRATION_NAMES.includes(name)),
  };
}

/** Refuses a store a newer version has migrated: this version would misread it. */
export function refuseNewerSchema(state: SchemaState): void {
  if (state.unknown.length === 0) return;
  throw new StoreError(
    `the store was migrated by a newer version of Emergency Access (its schema is at ${last(state.applied)}, this version knows up to ${last(state.known)}): run that newer version, or restore the backup taken before the upgrade`,
  );
}

/** For every command but `dea migrate`: the schema must be exactly this version's. */
export function requireCurrentSchema(state: SchemaState): void {
  refuseNewerSchema(state);
  if (state.pending.length === 0) return;
  throw new StoreError(
    state.applied.length === 0
      ? 'the store is empty: no version of Emergency Access has set it up yet. Start the server once, or run "dea migrate"'
      : `the store's schema is behind this version (store: ${last(state.applied)}, this version: ${last(state.known)}; pending: ${state.pending.join(', ')}): run "dea migrate" (or start the server, which migrates unless DEA_MIGRATE=off)`,
  );
}

/** The PostgreSQL advisory lock (transaction-level) under which one process at a time migrates. */
const MIGRATION_LOCK_KEY = 7_301_947_011_112_017;

/**
 * Brings the schema up to date in one transaction; answers the migrations applied.
 *
 * On PostgreSQL the transaction first takes a transaction-level advisory lock, so instances and
 * CLI commands started together migrate one after another, and the lock ends with the transaction
 * whatever happens: safe behind PgBouncer in transaction pooling, where a session-level lock would
 * be taken on one server connection and released (or not) on another. On the embedded store the
 * transaction begins immediate, which serialises it the same way. Migrations are recorded in
 * Kysely's `kysely_migration` table, as before.
 */
export async function migrate(db: Db, dialect: Dialect): Promise<string[]> {
  const before = await schemaState(db);
  refuseNewerSchema(before);
  if (before.pending.length === 0) return [];
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres')
      await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(trx);
    await sql`create table if not exists kysely_migration (name varchar(255) not null primary key, timestamp varchar(255) not null)`.execute(
      trx,
    );
    // Read again under the lock: another process may have migrated meanwhile.
    const state = await schemaState(trx);
    refuseNewerSchema(state);
    const migrations = await migrationProvider.getMigrations();
    for (const name of state.pending) {
      try {
        await migrations[name]?.up(trx);
      } catch (error) {
        const cause = messageOf(error) ?? 'unknown error';
        throw new StoreError(`store migration ${name} failed: ${cause}`, { cause: error });
      }
      await sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(
        trx,
      );
    }
    return state.pending;
  });
}
