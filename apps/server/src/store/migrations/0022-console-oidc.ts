import type { Kysely } from 'kysely';

/**
 * The console's sign-in with an OpenID provider (ADR 0020): which console account a provider's
 * subject is, the sign-ins under way (state, nonce and PKCE verifier, keyed by a hash of the
 * browser's flow cookie, taken once), and of each session so signed in its sealed refresh token,
 * its role and when that was last taken from the provider.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_oidc_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) =>
      c.notNull().unique().references('console_accounts.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('console_oidc_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema
    .createTable('console_oidc_flows')
    .addColumn('browser_hash', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('again', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_oidc_flows_created')
    .on('console_oidc_flows')
    .column('created_at')
    .execute();
  await db.schema
    .createTable('console_oidc_sessions')
    .addColumn('id_hash', 'text', (c) =>
      c.primaryKey().references('console_sessions.id_hash').onDelete('cascade'),
    )
    .addColumn('refresh_token', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('roles_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_oidc_sessions').execute();
  await db.schema.dropTable('console_oidc_flows').execute();
  await db.schema.dropTable('console_oidc_identities').execute();
}
