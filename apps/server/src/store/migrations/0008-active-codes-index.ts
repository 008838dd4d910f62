import { sql, type Kysely } from 'kysely';

/**
 * The active-code reads (a code's limit when one is issued, the candidates when one is verified)
 * go by an index of the codes that can still be used: a user's used and revoked codes, which pile
 * up until the purge, are no longer read past. Both stores know partial indexes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index codes_active_by_user on codes (user_id, expires_at) where uses_left > 0 and invalidated_at is null`.execute(
    db,
  );
}
