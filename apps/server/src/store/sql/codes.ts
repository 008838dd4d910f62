import type { NewAuditEntry } from '../store.js';
import { randomBytes } from 'node:crypto';
import { CompiledQuery, sql, type Selectable } from 'kysely';
import { newId } from '../../crypto/ids.js';
import { digestBytes, keyedHash, sameDigest } from '../../crypto/keyed-hash.js';
import type { AuditEventName } from '../audit-event-names.js';
import { failureClearer, failureRecorder, type VerifyFailureRule } from './verify-failures.js';
import type { CodesTable } from '../database.js';
import { type AuditStampKey, auditInserter, auditRowOf, verificationStamp } from './audit.js';
import { PREPARED_MARK } from '../prepared-statements.js';
import { compiledOnce } from './compiled-once.js';
import { sharingTransactions } from './shared-transactions.js';
import { gatheredByTurn } from './by-turn.js';
import { policyOfUserQuery, policyOfUserStatement, policyOptionsOf } from './groups.js';
import {
  type Channel,
  type ChannelRow,
  channelsOfRows,
  channelsOfUserJson,
  channelsOfUserStatement,
} from './channels.js';
import type { Db, Dialect } from './db.js';

export interface NewCode {
  id: string;
  userId: string;
  codeHash: string;
  createdAt: number;
  expiresAt: number;
  uses: number;
  channelType: string | null;
}

export interface ActiveCode {
  id: string;
  codeHash: string;
  /** The send type it went to; null when it was shown on screen. */
  channelType: string | null;
  createdAt: number;
  expiresAt: number;
  usesLeft: number;
}

export type IssueOutcome =
  | {
      issued: true;
      /** The user's channels, read with the issue (the notice to them needs no read of its own). */
      channels: Channel[];
    }
  | { issued: false; reason: 'store-full' | 'no-user' };

/** Why a verification failed (for the audit log only: callers answer just valid or not). */
export type VerifyRefusal = 'unknown-user' | 'disabled' | 'codes-disabled' | 'no-usable-code' | 'locked';

/** What a user's stored policy means for a verification, as the domain resolves it. */
export interface VerifyPolicy {
  /** The policy lets the user have codes. */
  enabled: boolean;
  /** How the policy's alphabet normalizes an input (crypto/code-generator.ts, CODE_FORMS). */
  form: number;
  /** Codes compared at least, whatever the user holds (decoys for the ones missing). */
  compareAtLeast: number;
}

export interface VerifyCall {
  /** The user the code is presented for, or an id no user has (an unknown name): the same work. */
  userId: string;
  /** A refusal the caller knows of already (unknown user, disabled user): nothing is used. */
  refusal: 'unknown-user' | 'disabled' | null;
  /** The input's keyed hashes, form after form (CODE_FORMS), each with every accepted key. */
  candidates: readonly string[];
  keyCount: number;
  /** The form of the default alphabet, for a user whose policy names none that is valid. */
  defaultForm: number;
  /** The policy category whose options decide (Self Service). */
  policyCategory: string;
  /** The stored policy resolved (undefined: the user has none). */
  policyOf: (stored: Record<string, unknown> | undefined) => VerifyPolicy;
  now: number;
  rule: VerifyFailureRule;
  /** Who the audit entries name. */
  audit: { userId: string | null; actor: string; clientAddress: string | null };
}

export interface VerifyAnswer {
  outcome: { used: true; codeId: string } | { used: false; reason: VerifyRefusal };
  /** The audit entries it wrote (for metrics and the audit export's listeners). */
  entries: (NewAuditEntry & { id: string })[];
}

export interface CodeRepository {
  /**
   * Inserts the code only when the user holds fewer than `maxUnused` usable codes, decided
   * atomically (the user's row is locked for the decision), and writes the audit entry in the
   * same transaction.
   */
  issue(code: NewCode, maxUnused: number, audit: NewAuditEntry): Promise<IssueOutcome>;
  /** Usable codes: not expired, not invalidated, with uses left. */
  listActive(userId: string, now: number): Promise<ActiveCode[]>;
  countActive(userId: string, now: number): Promise<number>;
  /** Takes one use of the code when it still has one; true when this call got it. */
  consume(codeId: string, now: number): Promise<boolean>;
  /**
   * Gives back one use taken by `consume` whose answer never reached its client (it left); true
   * when the code had been used, and is not taken out of use.
   */
  giveBackUse(codeId: string): Promise<boolean>;
  /** Takes the code out of use; true when this call did (false: already taken out). */
  invalidate(codeId: string, now: number): Promise<boolean>;
  /**
   * The one verification of a code, in one round trip: counts the attempt (before any code is looked
   * at; a locked user goes no further), reads the user's policy, compares the input with each of
   * the user's usable codes (in constant time on the embedded store), uses the match, clears the
   * failures on a success and writes the audit entries (code.used, code.verify_failed,
   * code.verify_locked, code.verify_lockout), all in one statement on PostgreSQL (migration 0019)
   * and one transaction on the embedded store. There, transactions run one at a time: the count is
   * read first (a locked user goes no further) and written only for a failure.
   */
  verify(call: VerifyCall): Promise<VerifyAnswer>;
}

/** Stands in for the codes a user does not hold: every comparison is made, whatever they hold. */
const DECOY_CODE_HASH = digestBytes(keyedHash(randomBytes(32), 'no code'));

const isoOf = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

const VERIFY_CODE_CALL = `${PREPARED_MARK}select dea_verify_code($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) as answer`;

function verifyArguments(call: VerifyCall, stampKey: AuditStampKey | undefined): unknown[] {
  const { now, rule, audit } = call;
  // The entries' ids, and their stamps (migration 0035): the function decides their event and details.
  const [first, second] = [newId(now), newId(now)].map((id) => ({
    id,
    stamp: verificationStamp(stampKey, { id, at: now, ...audit }),
  }));
  return [
    call.userId,
    call.refusal,
    call.candidates,
    call.keyCount,
    call.defaultForm,
    call.policyCategory,
    now,
    rule.lockAfter,
    rule.lockMs === null ? null : now + rule.lockMs,
    audit.userId,
    audit.actor,
    audit.clientAddress,
    first?.id,
    second?.id,
    first?.stamp,
    second?.stamp,
  ];
}

/** dea_verify_code's arguments, as the columns of the statement that verifies several codes. */
const VERIFY_CODE_COLUMNS = [
  ['user_id', 'text'],
  ['refusal', 'text'],
  // The candidates joined with commas (keyed hashes are base64url): unnest flattens an array of arrays.
  ['candidates', 'text'],
  ['keys', 'integer'],
  ['default_form', 'integer'],
  ['category', 'text'],
  ['now', 'bigint'],
  ['lock_after', 'integer'],
  ['lock_until', 'bigint'],
  ['audit_user_id', 'text'],
  ['actor', 'text'],
  ['client_address', 'text'],
  ['audit_id', 'text'],
  ['second_audit_id', 'text'],
  ['audit_stamp', 'text'],
  ['second_audit_stamp', 'text'],
] as const;

const VERIFY_CODES_CALL = `${PREPARED_MARK}select t.ord, dea_verify_code(${VERIFY_CODE_COLUMNS.map(
  ([name]) => (name === 'candidates' ? `string_to_array(t.candidates, ',')` : `t.${name}`),
).join(', ')}) as answer
  from unnest(${VERIFY_CODE_COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})
  with ordinality as t(${VERIFY_CODE_COLUMNS.map(([name]) => name).join(', ')}, ord)`;

interface FunctionAnswer {
  outcome: VerifyRefusal | 'used' | 'recheck';
  codeId?: string;
  entries?: { id: string; event: AuditEventName; details: Record<string, unknown> }[];
}

/**
 * `uses_left > 0`, written as a literal. SQLite decides whether the partial index of usable codes
 * (`codes_active_by_user`, whose condition is `uses_left > 0`) applies by comparing the two conditions; with
 * a bound value there, every run of the statement binds it again and makes SQLite prepare the
 * statement anew (about 8 µs each time).
 */
const STILL_USABLE = sql.lit(0);

const ISSUE_CODE_CALL = `${PREPARED_MARK}select dea_issue_code($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) as outcome,
  ${channelsOfUserJson('$2')} as channels`;

interface IssueCall {
  code: NewCode;
  maxUnused: number;
  audit: NewAuditEntry;
}

/** dea_issue_code's arguments for one issue, in the order of ISSUE_CODE_COLUMNS. */
function issueArguments(
  { code, maxUnused, audit }: IssueCall,
  stampKey: AuditStampKey | undefined,
): unknown[] {
  const entry = auditRowOf(audit, code.createdAt, stampKey);
  return [
    code.id,
    code.userId,
    code.codeHash,
    code.createdAt,
    code.expiresAt,
    code.uses,
    code.channelType,
    maxUnused,
    entry.id,
    entry.event,
    entry.user_id,
    entry.actor,
    entry.client_address,
    entry.details,
    entry.stamp,
  ];
}

function outcomeOf(outcome: string | undefined, channels: readonly ChannelRow[] | null): IssueOutcome {
  if (outcome === 'issued') return { issued: true, channels: channelsOfRows(channels) };
  if (outcome === 'store-full' || outcome === 'no-user') return { issued: false, reason: outcome };
  throw new Error(`dea_issue_code answered ${String(outcome)}`);
}

/** dea_issue_code's arguments, as the columns of the statement that issues several codes. */
const ISSUE_CODE_COLUMNS = [
  ['id', 'text'],
  ['user_id', 'text'],
  ['code_hash', 'text'],
  ['created_at', 'bigint'],
  ['expires_at', 'bigint'],
  ['uses', 'integer'],
  ['channel_type', 'text'],
  ['max_unused', 'integer'],
  ['audit_id', 'text'],
  ['audit_event', 'text'],
  ['audit_user_id', 'text'],
  ['audit_actor', 'text'],
  ['audit_client_address', 'text'],
  ['audit_details', 'text'],
  ['audit_stamp', 'text'],
] as const;

const ISSUE_CODES_CALL = `${PREPARED_MARK}select t.ord, dea_issue_code(${ISSUE_CODE_COLUMNS.map(([name]) => `t.${name}`).join(', ')}) as outcome,
  ${channelsOfUserJson('t.user_id')} as channels
  from unnest(${ISSUE_CODE_COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})
  with ordinality as t(${ISSUE_CODE_COLUMNS.map(([name]) => name).join(', ')}, ord)`;

export function codeRepository(
  db: Db,
  dialect: Dialect,
  stampKey: AuditStampKey | undefined,
): CodeRepository {
  const insertAudit = auditInserter(db, stampKey);
  const channelsOfUser = channelsOfUserStatement(db);
  // Issuing a code is a hot path. On the embedded store it is a transaction of statements compiled
  // once; SQLite needs no row lock: its single connection runs one transaction at a time. The issues
  // of one turn of the event loop share a transaction and its commit (sharingTransactions).
  const userExists = compiledOnce(db, (values: { userId: string }) =>
    db.selectFrom('users').select('id').where('id', '=', values.userId),
  );
  // The limit is checked by the insert itself.
  const insertUnderLimit = compiledOnce(db, (values: Selectable<CodesTable> & { max_unused: number }) =>
    db
      .insertInto('codes')
      .columns([
        'id',
        'user_id',
        'code_hash',
        'created_at',
        'expires_at',
        'uses_left',
        'last_used_at',
        'invalidated_at',
        'channel_type',
      ])
      .expression(
        db
          .selectNoFrom((eb) => [
            eb.val(values.id).as('id'),
            eb.val(values.user_id).as('user_id'),
            eb.val(values.code_hash).as('code_hash'),
            eb.val(values.created_at).as('created_at'),
            eb.val(values.expires_at).as('expires_at'),
            eb.val(values.uses_left).as('uses_left'),
            eb.lit(null).as('last_used_at'),
            eb.lit(null).as('invalidated_at'),
            eb.val(values.channel_type).as('channel_type'),
          ])
          .where(
            (eb) =>
              eb
                .selectFrom('codes')
                .select(eb.fn.countAll<number>().as('n'))
                .where('user_id', '=', values.user_id)
                .where('expires_at', '>', values.created_at)
                .where('uses_left', '>', STILL_USABLE)
                .where('invalidated_at', 'is', null),
            '<',
            values.max_unused,
          )
          // The user's existence too: no statement of its own before (the foreign key alone would
          // fail the transaction the issues of one turn share).
          .where((eb) =>
            eb.exists(eb.selectFrom('users').select(sql.lit(1).as('one')).where('id', '=', values.user_id)),
          ),
      ),
  );
  const issueInSharedTransaction = sharingTransactions(
    db,
    async (trx, { code, maxUnused, audit }: { code: NewCode; maxUnused: number; audit: NewAuditEntry }) => {
      const inserted = await insertUnderLimit.run(trx, {
        id: code.id,
        user_id: code.userId,
        code_hash: code.codeHash,
        created_at: code.createdAt,
        expires_at: code.expiresAt,
        uses_left: code.uses,
        last_used_at: null,
        invalidated_at: null,
        channel_type: code.channelType,
        max_unused: maxUnused,
      });
      if (Number(inserted.numAffectedRows ?? 0n) === 0) {
        // Refused: which condition, asked only now (a refusal is rare).
        const exists = (await userExists.run(trx, { userId: code.userId })).rows.length > 0;
        return { issued: false, reason: exists ? 'store-full' : 'no-user' } as const;
      }
      await insertAudit(trx, audit, code.createdAt);
      const channels = channelsOfRows((await channelsOfUser.run(trx, { userId: code.userId })).rows);
      return { issued: true, channels } as const;
    },
  );
  // On PostgreSQL the same steps are one call of dea_issue_code (migration 0011): one round trip.
  const issueInOneCall = async (call: IssueCall) => {
    const result = await db.executeQuery<{ outcome: string; channels: ChannelRow[] | null }>(
      CompiledQuery.raw(ISSUE_CODE_CALL, issueArguments(call, stampKey)),
    );
    return outcomeOf(result.rows[0]?.outcome, result.rows[0]?.channels ?? null);
  };
  // The issues of one turn of the event loop go in one statement: dea_issue_code once per issue,
  // in turn (each sees the codes the ones before it inserted), ordered by user so that concurrent
  // statements of other instances lock users' rows in the same order and never deadlock.
  const issueManyInOneCall = async (items: readonly IssueCall[]): Promise<IssueOutcome[]> => {
    const userOf = (index: number) => items[index]!.code.userId;
    const order = items.map((_, index) => index);
    order.sort((a, b) => (userOf(a) === userOf(b) ? a - b : userOf(a) < userOf(b) ? -1 : 1));
    const rows = order.map((index) => issueArguments(items[index]!, stampKey));
    const columns = ISSUE_CODE_COLUMNS.map((_, column) => rows.map((row) => row[column]));
    const result = await db.executeQuery<{
      ord: number | string;
      outcome: string;
      channels: ChannelRow[] | null;
    }>(CompiledQuery.raw(ISSUE_CODES_CALL, columns));
    const outcomes: IssueOutcome[] = new Array<IssueOutcome>(items.length);
    for (const row of result.rows)
      outcomes[order[Number(row.ord) - 1]!] = outcomeOf(row.outcome, row.channels);
    return outcomes;
  };
  const issueGathered = gatheredByTurn(issueManyInOneCall, issueInOneCall);

  // Verification on the embedded store (and on PostgreSQL for an alphabet dea_verify_code leaves to
  // the caller): a transaction of statements compiled once, the comparisons in constant time.
  const policyOfUser = policyOfUserStatement(db);
  const usableOf = compiledOnce(db, (values: { userId: string; now: number }) =>
    db
      .selectFrom('codes')
      .select(['id', 'code_hash', 'channel_type'])
      .where('user_id', '=', values.userId)
      .where('expires_at', '>', values.now)
      .where('uses_left', '>', STILL_USABLE)
      .where('invalidated_at', 'is', null)
      .orderBy('created_at'),
  );
  const useOne = compiledOnce(db, (values: { codeId: string; now: number }) =>
    db
      .updateTable('codes')
      .set((eb) => ({ uses_left: eb('uses_left', '-', 1), last_used_at: values.now }))
      .where('id', '=', values.codeId)
      .where('uses_left', '>', STILL_USABLE)
      .where('expires_at', '>', values.now)
      .where('invalidated_at', 'is', null),
  );
  const recordFailure = failureRecorder(db);
  const clearFailures = failureClearer(db);
  // The embedded store's first read of a verification: the user's policy and failure count in one
  // statement (a row always; failures null when the user has no count).
  const policyAndFailuresOf = compiledOnce(db, (values: { userId: string; category: string }) =>
    db.selectNoFrom((eb) => [
      policyOfUserQuery(db, values).as('options'),
      eb.selectFrom('verify_failures').select('failures').where('user_id', '=', values.userId).as('failures'),
      eb
        .selectFrom('verify_failures')
        .select('locked_at')
        .where('user_id', '=', values.userId)
        .as('locked_at'),
      eb
        .selectFrom('verify_failures')
        .select('locked_until')
        .where('user_id', '=', values.userId)
        .as('locked_until'),
    ]),
  );
  /**
   * `countFirst`: the attempt counted before the compare (PostgreSQL's recheck, where other
   * transactions run beside and the count's row lock orders them). The embedded store's
   * transactions run one at a time (one connection, `begin immediate`; a shared transaction's
   * pieces in turn), so no other attempt can come between its read and its writes: it reads the
   * count, and an attempt that the count would not lock compares first, then counts only a
   * failure. A success then writes no count (nor clears one that is not there), where it counted
   * and cleared, two writes of the same row in every success.
   */
  const verifyIn = async (trx: Db, call: VerifyCall, countFirst = true): Promise<VerifyAnswer> => {
    const { userId, now, audit } = call;
    const entries: (NewAuditEntry & { id: string })[] = [];
    const write = async (event: AuditEventName, details: Record<string, unknown>): Promise<void> => {
      const entry = { id: newId(now), event, ...audit, details };
      await insertAudit(trx, entry, now);
      entries.push(entry);
    };
    let counted: Awaited<ReturnType<typeof recordFailure>>;
    let failuresBefore = 0;
    let storedOptions: string | null | undefined;
    if (countFirst) {
      storedOptions = (await policyOfUser.run(trx, { userId, category: call.policyCategory })).rows[0]
        ?.options;
    } else {
      const read = (await policyAndFailuresOf.run(trx, { userId, category: call.policyCategory })).rows[0];
      storedOptions = read?.options;
      const row = read?.failures === null || read?.failures === undefined ? undefined : read;
      failuresBefore = Number(row?.failures ?? 0);
      // What the count would make of this attempt (verify-failures.ts failureRecorder): a lock
      // still running, or one this failure would start beyond the limit, goes the counted way.
      const lockedAt = row?.locked_at ?? null;
      const lockedUntil = row?.locked_until ?? null;
      const lockEnded = lockedAt !== null && lockedUntil !== null && Number(lockedUntil) <= now;
      const stillLocked = lockedAt !== null && !lockEnded;
      const count = row === undefined || lockEnded ? 1 : failuresBefore + 1;
      countFirst = stillLocked || count > call.rule.lockAfter;
    }
    const policy = call.policyOf(
      storedOptions === null || storedOptions === undefined ? undefined : policyOptionsOf(storedOptions),
    );
    if (countFirst) counted = await recordFailure(trx, userId, now, call.rule);
    if (counted !== undefined && counted.lockedAt !== null && counted.failures > call.rule.lockAfter) {
      await write('code.verify_locked', {
        failures: counted.failures,
        lockedUntil: isoOf(counted.lockedUntil),
      });
      return { outcome: { used: false, reason: 'locked' }, entries };
    }
    const refusal = call.refusal ?? (policy.enabled ? null : 'codes-disabled');
    // Compared whatever the refusal, so that no kind of failure answers sooner than another.
    const held = (await usableOf.run(trx, { userId, now })).rows;
    const first = policy.form * call.keyCount;
    // Raw digests, each decoded once: the comparisons make no Buffer of their own.
    const candidates = call.candidates.slice(first, first + call.keyCount).map(digestBytes);
    const heldDigests = held.map((active) => digestBytes(active.code_hash));
    let matched: (typeof held)[number] | undefined;
    for (let index = 0; index < Math.max(held.length, policy.compareAtLeast); index += 1) {
      const digest = heldDigests[index] ?? DECOY_CODE_HASH;
      for (const candidate of candidates) if (sameDigest(digest, candidate)) matched ??= held[index];
    }
    if (
      refusal === null &&
      matched !== undefined &&
      Number((await useOne.run(trx, { codeId: matched.id, now })).numAffectedRows ?? 0n) > 0
    ) {
      // A success forgets the failures, and ends the lock this very attempt may have started.
      if (counted !== undefined || failuresBefore > 0) await clearFailures(trx, userId);
      await write('code.used', { codeId: matched.id, channel: matched.channel_type ?? 'screen' });
      return { outcome: { used: true, codeId: matched.id }, entries };
    }
    const reason = refusal ?? 'no-usable-code';
    if (!countFirst) counted = await recordFailure(trx, userId, now, call.rule);
    await write(
      'code.verify_failed',
      counted === undefined ? { reason } : { reason, failures: counted.failures },
    );
    // Increments are atomic, so exactly one failure reaches the limit: that one started the lock.
    if (counted !== undefined && counted.failures === call.rule.lockAfter && counted.lockedAt !== null) {
      await write('code.verify_lockout', {
        failures: counted.failures,
        lockedUntil: isoOf(counted.lockedUntil),
      });
    }
    return { outcome: { used: false, reason }, entries };
  };
  const verifyInSharedTransaction = sharingTransactions(db, (trx, call: VerifyCall) =>
    verifyIn(trx, call, false),
  );
  const answerOf = (call: VerifyCall, text: string | undefined): Promise<VerifyAnswer> | VerifyAnswer => {
    const answer = JSON.parse(text ?? '{}') as FunctionAnswer;
    if (answer.outcome === 'recheck') return db.transaction().execute((trx) => verifyIn(trx, call));
    const entries = (answer.entries ?? []).map((entry) => ({ ...entry, ...call.audit }));
    if (answer.outcome === 'used' && answer.codeId !== undefined)
      return { outcome: { used: true, codeId: answer.codeId }, entries };
    if (answer.outcome === 'used' || answer.outcome === undefined)
      throw new Error(`dea_verify_code answered ${text}`);
    return { outcome: { used: false, reason: answer.outcome }, entries };
  };
  // The function's answer as text: read (and, for `recheck`, verified in a transaction) after the
  // statement, so that a gathered statement that did its work is never run again call by call.
  const verifyInOneCall = async (call: VerifyCall): Promise<string | undefined> => {
    const result = await db.executeQuery<{ answer: string }>(
      CompiledQuery.raw(VERIFY_CODE_CALL, verifyArguments(call, stampKey)),
    );
    return result.rows[0]?.answer;
  };
  // The verifications of one turn of the event loop go in one statement: dea_verify_code once per
  // verification, in turn (each sees what the ones before it wrote), ordered by user so that
  // concurrent statements of other instances (and code issues, ordered alike) lock users' rows in
  // the same order and never deadlock.
  const verifyManyInOneCall = async (calls: readonly VerifyCall[]): Promise<(string | undefined)[]> => {
    const userOf = (index: number) => calls[index]!.userId;
    const order = calls.map((_, index) => index);
    order.sort((a, b) => (userOf(a) === userOf(b) ? a - b : userOf(a) < userOf(b) ? -1 : 1));
    const rows = order.map((index) => {
      const row = verifyArguments(calls[index]!, stampKey);
      row[2] = (row[2] as string[]).join(',');
      return row;
    });
    const columns = VERIFY_CODE_COLUMNS.map((_, column) => rows.map((row) => row[column]));
    const result = await db.executeQuery<{ ord: number | string; answer: string }>(
      CompiledQuery.raw(VERIFY_CODES_CALL, columns),
    );
    const texts = new Array<string | undefined>(calls.length);
    for (const row of result.rows) texts[order[Number(row.ord) - 1]!] = row.answer;
    return texts;
  };
  const verifyGathered = gatheredByTurn(verifyManyInOneCall, verifyInOneCall);
  return {
    async verify(call) {
      if (dialect === 'postgres') return answerOf(call, await verifyGathered(call));
      return verifyInSharedTransaction(call);
    },
    async issue(code, maxUnused, audit) {
      if (dialect === 'postgres') return issueGathered({ code, maxUnused, audit });
      return issueInSharedTransaction({ code, maxUnused, audit });
    },
    async listActive(userId, now) {
      return db
        .selectFrom('codes')
        .select([
          'id',
          'code_hash as codeHash',
          'channel_type as channelType',
          'created_at as createdAt',
          'expires_at as expiresAt',
          'uses_left as usesLeft',
        ])
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .where('uses_left', '>', STILL_USABLE)
        .where('invalidated_at', 'is', null)
        .orderBy('created_at')
        .execute()
        .then((rows) =>
          rows.map((row) => ({
            ...row,
            createdAt: Number(row.createdAt),
            expiresAt: Number(row.expiresAt),
            usesLeft: Number(row.usesLeft),
          })),
        );
    },
    async countActive(userId, now) {
      const row = await db
        .selectFrom('codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .where('uses_left', '>', STILL_USABLE)
        .where('invalidated_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async consume(codeId, now) {
      // One statement decides: of two concurrent calls only one sees uses_left > 0.
      const result = await db
        .updateTable('codes')
        .set((eb) => ({ uses_left: eb('uses_left', '-', 1), last_used_at: now }))
        .where('id', '=', codeId)
        .where('uses_left', '>', STILL_USABLE)
        .where('expires_at', '>', now)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async giveBackUse(codeId) {
      const result = await db
        .updateTable('codes')
        .set((eb) => ({ uses_left: eb('uses_left', '+', 1) }))
        .where('id', '=', codeId)
        .where('last_used_at', 'is not', null)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async invalidate(codeId, now) {
      const result = await db
        .updateTable('codes')
        .set({ invalidated_at: now })
        .where('id', '=', codeId)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
