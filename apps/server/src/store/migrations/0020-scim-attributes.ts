import { type Kysely } from 'kysely';

/**
 * What SCIM round-trips (RFC 7643): a user's given and family name, which of their e-mail
 * addresses and which of their phone numbers is the primary one (a channel key; null: none
 * marked), and a group's externalId and the source that created it ('scim': SCIM deletes it;
 * null, as for every group before this column: an operator's, which SCIM only releases).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('given_name', 'text').execute();
  await db.schema.alterTable('users').addColumn('family_name', 'text').execute();
  await db.schema.alterTable('users').addColumn('primary_email', 'text').execute();
  await db.schema.alterTable('users').addColumn('primary_phone', 'text').execute();
  await db.schema.alterTable('groups').addColumn('external_id', 'text').execute();
  await db.schema.alterTable('groups').addColumn('created_by', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['given_name', 'family_name', 'primary_email', 'primary_phone'])
    await db.schema.alterTable('users').dropColumn(column).execute();
  for (const column of ['external_id', 'created_by'])
    await db.schema.alterTable('groups').dropColumn(column).execute();
}
