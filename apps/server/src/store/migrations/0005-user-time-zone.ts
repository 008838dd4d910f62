import type { Kysely } from 'kysely';

/** A user's own time zone (IANA name) for times in messages; null: the deployment's DEA_TIME_ZONE. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('time_zone').execute();
}
