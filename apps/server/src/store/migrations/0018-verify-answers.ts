import type { Kysely } from 'kysely';

/**
 * The answers of verifications asked with an Idempotency-Key, kept for the key's window so that a
 * retry reaching any instance gets the same answer instead of a second verification. The key and
 * the request's fingerprint are keyed hashes; never the code. The retention purge removes what has
 * expired (by `verify_answers_expiry`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('verify_answers')
    .addColumn('key_hash', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('answer', 'text')
    .addColumn('repeated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('verify_answers_expiry').on('verify_answers').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('verify_answers').execute();
}
