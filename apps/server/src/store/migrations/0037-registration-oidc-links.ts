import type { Kysely } from 'kysely';

/**
 * The person a subject of the organisation's OpenID provider is, for the registration of channels
 * (ADR 0033): linked at the first registration opened through the provider (the claim
 * DEA_OIDC_USERNAME_CLAIM naming the person exactly) and compared by issuer and subject after it.
 * One subject a person at each issuer, one person a subject; removed with the person.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('registration_oidc_links')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('linked_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('registration_oidc_links_pk', ['issuer', 'subject'])
    .addUniqueConstraint('registration_oidc_links_user', ['user_id', 'issuer'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('registration_oidc_links').execute();
}
