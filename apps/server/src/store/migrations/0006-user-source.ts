import { sql, type Kysely } from 'kysely';

/**
 * Where a user comes from: 'local' (made here), 'ldap' (the organisation's directory), 'scim'
 * (provisioned by an identity provider) or 'import' (a bulk import); and the source's own id of
 * the user (entryUUID, objectGUID, SCIM id), unique within the source, so renames keep the user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('source', 'text', (column) => column.notNull().defaultTo(sql`'local'`))
    .execute();
  await db.schema.alterTable('users').addColumn('external_id', 'text').execute();
  await db.schema
    .createIndex('users_source_external_id')
    .on('users')
    .columns(['source', 'external_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_source_external_id').execute();
  await db.schema.alterTable('users').dropColumn('external_id').execute();
  await db.schema.alterTable('users').dropColumn('source').execute();
}
