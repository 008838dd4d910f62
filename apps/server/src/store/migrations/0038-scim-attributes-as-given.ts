import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * SCIM's displayName and name.formatted as the client gave them (RFC 7643 4.1.1), null when it
 * gave none (the attribute is unassigned); the full name stays the product's own, made of them, of
 * the name's parts or of the user name. A user's language may be none (a PATCH `remove` of
 * preferredLanguage, RFC 7644 3.5.2.2; a SCIM user created without one): the page's language rule
 * then applies, and messages are in the language of the request or English.
 *
 * Every SCIM user so far was answered with its full name as displayName and, with a given or family
 * name, both joined as name.formatted: those answers are kept as their values.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('display_name', 'text').execute();
  await db.schema.alterTable('users').addColumn('formatted_name', 'text').execute();
  await sql`update users set display_name = full_name where source = 'scim'`.execute(db);
  await sql`update users set formatted_name = trim(coalesce(given_name, '') || ' ' || coalesce(family_name, ''))
    where source = 'scim' and (given_name is not null or family_name is not null)`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table users alter column locale drop not null`.execute(db);
    return;
  }
  // SQLite alters no column's constraint: the column is made anew, its values copied (no index,
  // key or view names it).
  await db.schema.alterTable('users').addColumn('locale_anew', 'text').execute();
  await sql`update users set locale_anew = locale`.execute(db);
  await db.schema.alterTable('users').dropColumn('locale').execute();
  await db.schema.alterTable('users').renameColumn('locale_anew', 'locale').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update users set locale = 'en' where locale is null`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table users alter column locale set not null`.execute(db);
  } else {
    await db.schema
      .alterTable('users')
      .addColumn('locale_before', 'text', (column) => column.notNull().defaultTo('en'))
      .execute();
    await sql`update users set locale_before = locale`.execute(db);
    await db.schema.alterTable('users').dropColumn('locale').execute();
    await db.schema.alterTable('users').renameColumn('locale_before', 'locale').execute();
  }
  await db.schema.alterTable('users').dropColumn('formatted_name').execute();
  await db.schema.alterTable('users').dropColumn('display_name').execute();
}
