import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * On PostgreSQL, issuing a code is one call of this function instead of a transaction of five
 * round trips (BEGIN, lock, insert under the limit, audit entry, COMMIT): tempPass/create's hot
 * path. Each statement of a volatile PL/pgSQL function takes a new snapshot under READ
 * COMMITTED, so the count of unused codes, made after the user's row is locked, sees every code
 * committed before the lock was granted: the limit holds as it does in the transaction. The call
 * is one statement, so it is atomic without BEGIN and safe behind PgBouncer in transaction mode.
 * The embedded store keeps its transaction (no round trips there).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create or replace function dea_issue_code(
      p_id text, p_user_id text, p_code_hash text, p_created_at bigint, p_expires_at bigint,
      p_uses integer, p_channel_type text, p_max_unused integer,
      p_audit_id text, p_audit_event text, p_audit_user_id text, p_audit_actor text,
      p_audit_client_address text, p_audit_details text
    ) returns text language plpgsql volatile as $body$
    begin
      -- Concurrent issues for one user, on any instance, queue on the user's row.
      perform 1 from users where id = p_user_id for update;
      if not found then
        return 'no-user';
      end if;
      insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left, last_used_at,
                         invalidated_at, channel_type)
      select p_id, p_user_id, p_code_hash, p_created_at, p_expires_at, p_uses, null, null, p_channel_type
      where (select count(*) from codes
             where user_id = p_user_id and expires_at > p_created_at
               and uses_left > 0 and invalidated_at is null) < p_max_unused;
      if not found then
        return 'store-full';
      end if;
      insert into audit_log (id, at, event, user_id, actor, client_address, details)
      values (p_audit_id, p_created_at, p_audit_event, p_audit_user_id, p_audit_actor,
              p_audit_client_address, p_audit_details);
      return 'issued';
    end
    $body$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function if exists dea_issue_code(text, text, text, bigint, bigint, integer, text, integer, text, text, text, text, text, text)`.execute(
    db,
  );
}
