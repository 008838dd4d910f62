import type { Kysely } from 'kysely';

/**
 * Addresses a person may not register again: the link of a new channel's notice ("this
 * was not me") blocks the address it undid, and those of the other channels it removed, for that
 * person, until the help desk or `dea user allow-addresses` allows them again. One row per person,
 * type of send and canonical address (the same number under another key is the same address);
 * allowing deletes the row, the audit keeps the history. An undo link keeps the address it was
 * made for, so that the address is blocked even when the channel changed since. The identity
 * provider's flows are found by person, as a sign-out ends them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('blocked_addresses')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('blocked_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('blocked_addresses_pk', ['user_id', 'type', 'address'])
    .execute();
  await db.schema.alterTable('channel_undo_links').addColumn('address', 'text').execute();
  // A sign-out ends the person's flows at the identity provider with their registration sessions.
  await db.schema
    .createIndex('registration_oidc_flows_user')
    .on('registration_oidc_flows')
    .column('user_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registration_oidc_flows_user').execute();
  await db.schema.alterTable('channel_undo_links').dropColumn('address').execute();
  await db.schema.dropTable('blocked_addresses').execute();
}
