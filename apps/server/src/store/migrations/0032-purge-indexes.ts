import type { Kysely } from 'kysely';

/** The one-time links' tables: the purge finds their expired rows, then their used ones. */
const LINK_TABLES = ['channel_undo_links', 'registration_links', 'password_links', 'console_enrolment_links'];

/**
 * Indexes by which the retention purge (store/sql/retention.ts) finds what it may remove of the
 * proofs, challenges, registration sessions, one-time links and registration sign-ins at the
 * identity provider, a batch at a time, without reading the whole table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['channel_proofs', 'registration_sessions', ...LINK_TABLES])
    await db.schema.createIndex(`${table}_expiry`).on(table).column('expires_at').execute();
  for (const table of LINK_TABLES)
    await db.schema.createIndex(`${table}_used`).on(table).column('used_at').execute();
  await db.schema
    .createIndex('registration_oidc_flows_started')
    .on('registration_oidc_flows')
    .column('created_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registration_oidc_flows_started').execute();
  for (const table of LINK_TABLES) await db.schema.dropIndex(`${table}_used`).execute();
  for (const table of ['channel_proofs', 'registration_sessions', ...LINK_TABLES])
    await db.schema.dropIndex(`${table}_expiry`).execute();
}
