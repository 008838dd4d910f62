import { randomBytes } from 'node:crypto';
import { newId } from '../../../crypto/ids.js';
import { digestBytes, keyedHash, sameDigest } from '../../../crypto/keyed-hash.js';
import type { AuditEventName } from '../../audit-event-names.js';
import type { NewAuditEntry } from '../../store.js';
import { type AuditStampKey, auditInserter } from '../audit.js';
import { STILL_USABLE, type VerifyAnswer, type VerifyCall } from '../codes.js';
import { compiledOnce } from '../compiled-once.js';
import type { Db } from '../db.js';
import { policyOfUserQuery, policyOptionsOf } from '../groups.js';
import { policyOfUserStatement } from './reads-embedded.js';
import { failureClearer, failureRecorder } from '../verify-failures.js';

/** Stands in for the codes a user does not hold: every comparison is made, whatever they hold. */
const DECOY_CODE_HASH = digestBytes(keyedHash(randomBytes(32), 'no code'));

const isoOf = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

/**
 * A code's verification as a transaction of statements compiled once, the comparisons in constant
 * time: the embedded store's every verification, and PostgreSQL's for the attempts dea_verify_code
 * leaves to its caller (`recheck`: an alphabet it does not know).
 */
export function codeVerification(
  db: Db,
  stampKey: AuditStampKey | undefined,
): (trx: Db, call: VerifyCall, countFirst?: boolean) => Promise<VerifyAnswer> {
  const insertAudit = auditInserter(db, stampKey);
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
  return verifyIn;
}
