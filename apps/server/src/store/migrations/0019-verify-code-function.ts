import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** The function of this migration, by its argument types. */
export const VERIFY_CODE_SIGNATURE =
  'dea_verify_code(text, text, text[], integer, integer, text, bigint, integer, bigint, text, text, text, text, text)';

/** The function as migration 0035 makes it, with the stamps of its entries. */
export const STAMPED_VERIFY_CODE_SIGNATURE =
  'dea_verify_code(text, text, text[], integer, integer, text, bigint, integer, bigint, text, text, text, text, text, text, text)';

/**
 * On PostgreSQL, verifying a code is one call of this function instead of about seven statements
 *: it counts the attempt, reads the user's policy, finds the usable code the input's
 * keyed hash matches, uses it, clears or keeps the failures and writes the audit entries, and
 * answers what it did as JSON: `{ outcome, codeId, entries: [{ id, event, details }] }`.
 *
 * The caller hashes the input once for each way a policy's alphabet normalizes it (the form:
 * 0 upper case, 1 lower case, 2 as typed; plus 3 when the alphabet holds a dash, which then is not
 * stripped) and each accepted key, form after form: `p_candidates[form * p_keys + key + 1]`. The
 * form is decided here from the policy as `domain/policies/policy.ts` resolves it, for alphabets of ASCII
 * characters; any other alphabet answers `recheck` before anything is written, and the caller
 * verifies in a transaction of its own. The stored hashes are HMAC-SHA-256 under a key the
 * caller never sees, so how long the comparison of one with the input's takes tells nothing
 * anybody can steer (the inputs' hashes are as unpredictable as the stored ones).
 *
 * Each statement takes a new snapshot under READ COMMITTED: the use of a code is one conditional
 * UPDATE, so of concurrent calls on any instance exactly as many succeed as the code has uses; the
 * count of failures is one upsert, so a burst of guesses is counted in full before any code is
 * looked at. One statement: atomic without BEGIN, safe behind PgBouncer in transaction mode.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createVerifyCodeFunction(db, 'delete from verify_failures where user_id = p_user_id;');
}

/**
 * Creates (or replaces) dea_verify_code; `forgetFailures` is the statement by which a success
 * forgets the user's failures (migration 0029 keeps the row and sets it to zero instead). With
 * `stamped` (migration 0035) it takes the stamps of its two possible entries as two more arguments
 * and writes them with the entries.
 */
export async function createVerifyCodeFunction(
  db: Kysely<unknown>,
  forgetFailures: string,
  stamped = false,
): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const stampArguments = stamped ? sql.raw(', p_audit_stamp text, p_second_audit_stamp text') : sql.raw('');
  const stampColumn = stamped ? sql.raw(', stamp') : sql.raw('');
  const stampValue = stamped ? sql.raw(', p_audit_stamp') : sql.raw('');
  const secondStampValue = stamped ? sql.raw(', p_second_audit_stamp') : sql.raw('');
  await sql`
    create or replace function dea_verify_code(
      p_user_id text, p_refusal text, p_candidates text[], p_keys integer, p_default_form integer,
      p_category text, p_now bigint, p_lock_after integer, p_lock_until bigint,
      p_audit_user_id text, p_actor text, p_client_address text, p_audit_id text, p_second_audit_id text${stampArguments}
    ) returns text language plpgsql volatile as $body$
    declare
      v_options jsonb;
      v_alphabet text;
      v_enabled boolean := false;
      v_form integer := p_default_form;
      v_counted boolean;
      v_failures integer;
      v_locked_at bigint;
      v_locked_until bigint;
      v_refusal text;
      v_code_id text;
      v_channel text;
      v_until_text text;
      v_details jsonb;
      v_entries jsonb := '[]'::jsonb;
    begin
      -- The policy of now decides, as the user's groups give it (highest priority, then name).
      select p.options::jsonb into v_options
        from policies p
        join user_groups ug on ug.group_id = p.group_id
        join groups g on g.id = p.group_id
        where ug.user_id = p_user_id and p.category = p_category
        order by g.priority desc, g.name
        limit 1;
      if v_options is not null then
        v_enabled := coalesce(v_options -> 'enableECode' = 'true'::jsonb, false);
        if jsonb_typeof(v_options -> 'codeAlphabet') = 'string' then
          v_alphabet := v_options ->> 'codeAlphabet';
          if octet_length(v_alphabet) <> char_length(v_alphabet) then
            return '{"outcome":"recheck"}';
          end if;
          if char_length(v_alphabet) between 10 and 100
             and (select count(distinct ascii(c)) from regexp_split_to_table(v_alphabet, '') c)
                 = char_length(v_alphabet) then
            v_form := case
                        when v_alphabet !~ '[abcdefghijklmnopqrstuvwxyz]' then 0
                        when v_alphabet !~ '[ABCDEFGHIJKLMNOPQRSTUVWXYZ]' then 1
                        else 2
                      end
                      + case when strpos(v_alphabet, '-') > 0 then 3 else 0 end;
          end if;
        end if;
      end if;

      -- Every attempt is counted before any code is looked at; from the user's own row, so an id
      -- no user has counts nothing. A lock that has run out starts a new series.
      insert into verify_failures as f (user_id, failures, last_failure_at, locked_at, locked_until)
        select u.id, 1, p_now,
               case when p_lock_after <= 1 then p_now end,
               case when p_lock_after <= 1 then p_lock_until end
          from users u where u.id = p_user_id
        on conflict (user_id) do update set
          failures = case when f.locked_at is not null and f.locked_until is not null
                               and f.locked_until <= p_now then 1 else f.failures + 1 end,
          last_failure_at = p_now,
          locked_at = case
            when f.locked_at is not null
                 and not (f.locked_until is not null and f.locked_until <= p_now) then f.locked_at
            when (case when f.locked_at is not null and f.locked_until is not null
                            and f.locked_until <= p_now then 1 else f.failures + 1 end) >= p_lock_after
              then p_now
            end,
          locked_until = case
            when f.locked_at is not null
                 and not (f.locked_until is not null and f.locked_until <= p_now) then f.locked_until
            when (case when f.locked_at is not null and f.locked_until is not null
                            and f.locked_until <= p_now then 1 else f.failures + 1 end) >= p_lock_after
              then p_lock_until
            end
        returning failures, locked_at, locked_until into v_failures, v_locked_at, v_locked_until;
      v_counted := found;
      if v_locked_until is not null then
        v_until_text := to_char((timestamptz 'epoch' + v_locked_until * interval '1 millisecond')
                                  at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      end if;

      if v_counted and v_locked_at is not null and v_failures > p_lock_after then
        insert into audit_log (id, at, event, user_id, actor, client_address, details${stampColumn})
        values (p_audit_id, p_now, 'code.verify_locked', p_audit_user_id, p_actor, p_client_address,
                jsonb_build_object('failures', v_failures, 'lockedUntil', v_until_text)::text${stampValue});
        return jsonb_build_object('outcome', 'locked', 'entries', jsonb_build_array(jsonb_build_object(
          'id', p_audit_id, 'event', 'code.verify_locked',
          'details', jsonb_build_object('failures', v_failures, 'lockedUntil', v_until_text))))::text;
      end if;

      v_refusal := coalesce(p_refusal, case when not v_enabled then 'codes-disabled' end);
      -- Looked for whatever the refusal, so that no kind of failure answers sooner than another.
      select c.id, c.channel_type into v_code_id, v_channel
        from codes c
        where c.user_id = p_user_id and c.expires_at > p_now and c.uses_left > 0
          and c.invalidated_at is null
          and c.code_hash = any(p_candidates[v_form * p_keys + 1 : v_form * p_keys + p_keys])
        order by c.created_at
        limit 1;
      if v_refusal is null and v_code_id is not null then
        update codes set uses_left = uses_left - 1, last_used_at = p_now
          where id = v_code_id and uses_left > 0 and expires_at > p_now and invalidated_at is null;
        if found then
          -- A success forgets the failures, and ends the lock this very attempt may have started.
          ${sql.raw(forgetFailures)}
          v_details := jsonb_build_object('codeId', v_code_id, 'channel', coalesce(v_channel, 'screen'));
          insert into audit_log (id, at, event, user_id, actor, client_address, details${stampColumn})
          values (p_audit_id, p_now, 'code.used', p_audit_user_id, p_actor, p_client_address,
                  v_details::text${stampValue});
          return jsonb_build_object('outcome', 'used', 'codeId', v_code_id, 'entries',
            jsonb_build_array(jsonb_build_object('id', p_audit_id, 'event', 'code.used',
                                                 'details', v_details)))::text;
        end if;
      end if;

      v_refusal := coalesce(v_refusal, 'no-usable-code');
      v_details := case when v_counted
                        then jsonb_build_object('reason', v_refusal, 'failures', v_failures)
                        else jsonb_build_object('reason', v_refusal) end;
      insert into audit_log (id, at, event, user_id, actor, client_address, details${stampColumn})
      values (p_audit_id, p_now, 'code.verify_failed', p_audit_user_id, p_actor, p_client_address,
              v_details::text${stampValue});
      v_entries := jsonb_build_array(jsonb_build_object('id', p_audit_id, 'event', 'code.verify_failed',
                                                        'details', v_details));
      -- Increments are atomic, so exactly one failure reaches the limit: that one started the lock.
      if v_counted and v_failures = p_lock_after and v_locked_at is not null then
        v_details := jsonb_build_object('failures', v_failures, 'lockedUntil', v_until_text);
        insert into audit_log (id, at, event, user_id, actor, client_address, details${stampColumn})
        values (p_second_audit_id, p_now, 'code.verify_lockout', p_audit_user_id, p_actor,
                p_client_address, v_details::text${secondStampValue});
        v_entries := v_entries || jsonb_build_array(jsonb_build_object(
          'id', p_second_audit_id, 'event', 'code.verify_lockout', 'details', v_details));
      end if;
      return jsonb_build_object('outcome', v_refusal, 'entries', v_entries)::text;
    end
    $body$`.execute(db);
  // Plans kept per connection whatever the statistics, as dea_issue_code's (migration 0013).
  await sql
    .raw(
      `alter function ${stamped ? STAMPED_VERIFY_CODE_SIGNATURE : VERIFY_CODE_SIGNATURE} set plan_cache_mode = force_generic_plan`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql.raw(`drop function if exists ${VERIFY_CODE_SIGNATURE}`).execute(db);
}
