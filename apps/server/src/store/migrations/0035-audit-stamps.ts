import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { ISSUE_CODE_SIGNATURE } from './0013-issue-code-generic-plan.js';
import {
  createVerifyCodeFunction,
  STAMPED_VERIFY_CODE_SIGNATURE,
  VERIFY_CODE_SIGNATURE,
} from './0019-verify-code-function.js';

/** dea_issue_code as this migration makes it, with the stamp of its entry. */
export const STAMPED_ISSUE_CODE_SIGNATURE =
  'dea_issue_code(text, text, text, bigint, bigint, integer, text, integer, text, text, text, text, text, text, text)';

/** How migration 0029 left the verification's success (kept here for `down`). */
const FORGET_FAILURES =
  'update verify_failures set failures = 0, locked_at = null, locked_until = null where user_id = p_user_id;';

/**
 * Every audit entry carries its writer's stamp (ADR 0032): an HMAC over the entry under a key
 * derived from the server secret, with the secret's fingerprint. A seal chains only entries whose
 * stamp is valid, so a row put into `audit_log` by someone without the secret is set aside
 * (`chain_key` 'refused') instead of sealed as genuine; the unsealed index leaves such rows out.
 * Entries an older version left unsealed are marked 'legacy': a seal takes them only while no
 * stamped entry has been sealed. On PostgreSQL the two functions that write entries inside the
 * database take the stamps as arguments.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('stamp', 'text').execute();
  await sql`update audit_log set stamp = 'legacy' where seq is null`.execute(db);
  // A store a server ran on whose trail was never sealed (nothing written yet): its next start
  // gives the trail its signed head at place 0, as a new store's first start does (ADR 0032).
  await sql`insert into meta (key, value)
    select 'audit.unsealed_at_0035', '1'
    where exists (select 1 from meta where key = 'secret.fingerprint')
      and not exists (select 1 from audit_chain) and not exists (select 1 from audit_log where seq is not null)`.execute(
    db,
  );
  // A trail sealed before: the store says so, one more trace beside its head (ADR 0032).
  await sql`insert into meta (key, value)
    select 'audit.sealed', '1'
    where exists (select 1 from audit_chain) or exists (select 1 from audit_log where seq is not null)`.execute(
    db,
  );
  await db.schema.dropIndex('audit_log_unsealed').execute();
  await db.schema
    .createIndex('audit_log_unsealed')
    .on('audit_log')
    .columns(['at', 'id'])
    .where(sql<boolean>`seq is null and chain_key is null`)
    .execute();
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql.raw(`drop function if exists ${ISSUE_CODE_SIGNATURE}`).execute(db);
  await sql`
    create or replace function dea_issue_code(
      p_id text, p_user_id text, p_code_hash text, p_created_at bigint, p_expires_at bigint,
      p_uses integer, p_channel_type text, p_max_unused integer,
      p_audit_id text, p_audit_event text, p_audit_user_id text, p_audit_actor text,
      p_audit_client_address text, p_audit_details text, p_audit_stamp text
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
      insert into audit_log (id, at, event, user_id, actor, client_address, details, stamp)
      values (p_audit_id, p_created_at, p_audit_event, p_audit_user_id, p_audit_actor,
              p_audit_client_address, p_audit_details, p_audit_stamp);
      return 'issued';
    end
    $body$`.execute(db);
  // Plans kept per connection whatever the statistics (migration 0013).
  await sql
    .raw(`alter function ${STAMPED_ISSUE_CODE_SIGNATURE} set plan_cache_mode = force_generic_plan`)
    .execute(db);
  await sql.raw(`drop function if exists ${VERIFY_CODE_SIGNATURE}`).execute(db);
  await createVerifyCodeFunction(db, FORGET_FAILURES, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql.raw(`drop function if exists ${STAMPED_VERIFY_CODE_SIGNATURE}`).execute(db);
    await createVerifyCodeFunction(db, FORGET_FAILURES);
    await sql.raw(`drop function if exists ${STAMPED_ISSUE_CODE_SIGNATURE}`).execute(db);
    await sql`
      create or replace function dea_issue_code(
        p_id text, p_user_id text, p_code_hash text, p_created_at bigint, p_expires_at bigint,
        p_uses integer, p_channel_type text, p_max_unused integer,
        p_audit_id text, p_audit_event text, p_audit_user_id text, p_audit_actor text,
        p_audit_client_address text, p_audit_details text
      ) returns text language plpgsql volatile as $body$
      begin
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
    await sql
      .raw(`alter function ${ISSUE_CODE_SIGNATURE} set plan_cache_mode = force_generic_plan`)
      .execute(db);
  }
  await db.schema.dropIndex('audit_log_unsealed').execute();
  await db.schema
    .createIndex('audit_log_unsealed')
    .on('audit_log')
    .columns(['at', 'id'])
    .where(sql.ref('seq'), 'is', null)
    .execute();
  await db.schema.alterTable('audit_log').dropColumn('stamp').execute();
  await sql`delete from meta where key in ('audit.unsealed_at_0035', 'audit.sealed')`.execute(db);
}
