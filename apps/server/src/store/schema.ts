import { Migrator, sql } from 'kysely';
import { MIGRATION_NAMES, migrationProvider } from './migrations/index.js';
import type { Db } from './sql/db.js';
import { codeOf, StoreError } from './store-error.js';

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
    const text = `${codeOf(error)} ${error instanceof Error ? error.message : ''}`;
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

/** Brings the schema up to date; answers the migrations applied. */
export async function migrate(db: Db): Promise<string[]> {
  refuseNewerSchema(await schemaState(db));
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const cause = error instanceof Error ? error.message : 'unknown error';
    throw new StoreError(`store migration ${failed?.migrationName ?? ''} failed: ${cause}`, { cause: error });
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
