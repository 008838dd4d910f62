import { type Kysely, sql } from 'kysely';

/**
 * The audit trail's chain and export positions (ADR 0018). Each entry gets, once sealed, its
 * place in the one order of the trail (`seq`), its chain value (an HMAC over the previous chain
 * value and its own content) and the fingerprint of the secret whose key made it. The head of
 * the chain and the checkpoints the purge and a secret rotation leave are signed rows of
 * `audit_chain`; each export destination keeps the last `seq` it received in
 * `audit_export_positions`. Entries written before this migration are sealed by the first seal.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('seq', 'bigint').execute();
  await db.schema.alterTable('audit_log').addColumn('chain', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('chain_key', 'text').execute();
  await db.schema.createIndex('audit_log_seq').unique().on('audit_log').column('seq').execute();
  await db.schema
    .createIndex('audit_log_unsealed')
    .on('audit_log')
    .columns(['at', 'id'])
    .where(sql.ref('seq'), 'is', null)
    .execute();
  await db.schema
    .createTable('audit_chain')
    // 'head' (one row), or 'checkpoint:<seq>'.
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('chain_key', 'text', (c) => c.notNull())
    .addColumn('mac', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('audit_export_positions')
    .addColumn('destination', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_export_positions').execute();
  await db.schema.dropTable('audit_chain').execute();
  await db.schema.dropIndex('audit_log_unsealed').execute();
  await db.schema.dropIndex('audit_log_seq').execute();
  await db.schema.alterTable('audit_log').dropColumn('chain_key').execute();
  await db.schema.alterTable('audit_log').dropColumn('chain').execute();
  await db.schema.alterTable('audit_log').dropColumn('seq').execute();
}
