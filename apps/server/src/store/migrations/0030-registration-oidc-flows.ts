import type { Kysely } from 'kysely';

/**
 * A sign-in at the organisation's identity provider under way for the registration of channels
 *: its state, nonce and PKCE verifier, bound to the person signed in with their
 * password, taken once by the callback.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('registration_oidc_flows')
    .addColumn('state', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('registration_oidc_flows').execute();
}
