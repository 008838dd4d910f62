import type { Kysely } from 'kysely';

/**
 * When a service key's hash was made with the secret in use: at its creation, or again when it is
 * first used after the secret was replaced (`dea secret status` lists the keys not yet re-hashed).
 * Null for keys made before this migration: their creation time counts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('service_keys').addColumn('hashed_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('service_keys').dropColumn('hashed_at').execute();
}
