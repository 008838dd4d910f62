import type { Kysely } from 'kysely';

/**
 * A help-desk or auditor account limited to the members of named groups (scoped
 * roles): a JSON array of group names, null for an account that is not limited.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('console_accounts').addColumn('scope', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('console_accounts').dropColumn('scope').execute();
}
