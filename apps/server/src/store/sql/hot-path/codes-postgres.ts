import { CompiledQuery } from 'kysely';
import { newId } from '../../../crypto/ids.js';
import type { AuditEventName } from '../../audit-event-names.js';
import { PREPARED_MARK } from '../../prepared-statements.js';
import { type AuditStampKey, auditRowOf, verificationStamp } from '../audit.js';
import { type ChannelRow, channelsOfRows, channelsOfUserJson } from '../channels.js';
import type { IssueCall, IssueOutcome, VerifyAnswer, VerifyCall, VerifyRefusal } from '../codes.js';
import type { Db } from '../db.js';
import { gatheredByTurn } from './by-turn.js';
import { codeVerification } from './code-verification.js';
import type { HotPath } from './hot-path.js';

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

const ISSUE_CODE_CALL = `${PREPARED_MARK}select dea_issue_code($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) as outcome,
  ${channelsOfUserJson('$2')} as channels`;

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

/**
 * A code's issue and verification on PostgreSQL: each one call of a PL/pgSQL function
 * (dea_issue_code, migration 0011; dea_verify_code, migration 0019), one round trip; the calls of
 * one turn of the event loop one statement.
 */
export function postgresCodeUse(
  db: Db,
  stampKey: AuditStampKey | undefined,
): Pick<HotPath, 'issueCode' | 'verifyCode'> {
  const verifyIn = codeVerification(db, stampKey);
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
    issueCode: (call) => issueGathered(call),
    verifyCode: async (call) => answerOf(call, await verifyGathered(call)),
  };
}
