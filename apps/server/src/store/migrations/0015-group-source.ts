import { sql, type Kysely } from 'kysely';

/**
 * Who owns a group: 'local' (an operator made it with the CLI or the console, or it was there
 * before this column), 'scim' (an identity provider made it over SCIM, or an administrator handed
 * it over), or the source that made it for a user it provisioned ('ldap', 'import'). SCIM changes
 * only the groups it owns: an operator's group keeps its name and members.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('groups')
    .addColumn('source', 'text', (column) => column.notNull().defaultTo(sql`'local'`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('groups').dropColumn('source').execute();
}
