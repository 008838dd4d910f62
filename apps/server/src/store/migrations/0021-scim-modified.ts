import { type Kysely } from 'kysely';

/**
 * When a user or a group last changed (SCIM's meta.lastModified, RFC 7643 section 3.1), and when
 * a group was created; null for the rows before this migration (a user's then reads as changed
 * when created; a group's times are not known).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('updated_at', 'bigint').execute();
  await db.schema.alterTable('groups').addColumn('created_at', 'bigint').execute();
  await db.schema.alterTable('groups').addColumn('updated_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('updated_at').execute();
  await db.schema.alterTable('groups').dropColumn('created_at').execute();
  await db.schema.alterTable('groups').dropColumn('updated_at').execute();
}
