import type { AuditEventName } from './audit-events.js';
import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import type { CodeDefaults } from './code-settings.js';
import type { Store, User } from '../store/store.js';
import { newId } from '../crypto/ids.js';
import { findMatchingCode } from './codes.js';
import { resolvePolicy } from './policy.js';

export interface VerificationSettings {
  /** Consecutive failed verifications of one user that lock their codes (1 to 100). */
  maxFailures: number;
  /** How long a lock lasts; null: until an operator unlocks. */
  lockMs: number | null;
}

export interface VerifyAttempt {
  /** The user the code is presented for, looked up by the caller; undefined when unknown. */
  user: User | undefined;
  code: string;
  /** Who asks, for the audit log: `service-key:<name>` or `radius:<client address>`. */
  actor: string;
  clientAddress: string | null;
  now: number;
}

/** Why an attempt failed is for the audit log only: every caller answers just valid or not. */
export type VerifyOutcome =
  | { valid: true; codeId: string }
  | { valid: false; reason: 'unknown-user' | 'disabled' | 'codes-disabled' | 'no-usable-code' | 'locked' };

const iso = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

/**
 * The one verification of an emergency code, for the API and RADIUS alike. Consecutive failures
 * are counted per user in the store (so every instance sees them) and a new code does not reset
 * them; at `maxFailures` the user is locked: every attempt then fails without looking at (or
 * consuming) a code, until the lock runs out or an operator unlocks. A success clears the count.
 * Every outcome is audited, never the code.
 */
export class Verification {
  constructor(
    private readonly store: Store,
    /** The current key first; during a rotation, the previous secret's. */
    private readonly codeHashKeys: readonly Buffer[],
    private readonly codeDefaults: CodeDefaults,
    private readonly settings: VerificationSettings,
  ) {}

  /**
   * The id an unknown user name is verified as: no user has it, so nothing is counted, found or
   * used, but the store and the keyed hashes do what they do for a known user with a wrong code.
   */
  private readonly decoyUserId = newId();

  async verify(attempt: VerifyAttempt): Promise<VerifyOutcome> {
    const { user, actor, clientAddress, now } = attempt;
    const audit = (event: AuditEventName, details: Record<string, unknown>): Promise<void> =>
      this.store.audit.append({ event, userId: user?.id ?? null, actor, clientAddress, details }, now);
    // An unknown name takes the time a known one does: the same round trips and comparisons,
    // against a user id nobody has (no sleep, which a loaded server would not match).
    const subjectId = user?.id ?? this.decoyUserId;
    // Every attempt is counted before its code is looked at, in one atomic statement: of a
    // burst of parallel guesses on any number of instances, at most maxFailures are compared
    // with codes; the one that reaches the limit starts the lock and is still checked.
    const { maxFailures } = this.settings;
    const counted = await this.store.verifyFailures.record(subjectId, now, {
      lockAfter: maxFailures,
      lockMs: this.settings.lockMs,
    });
    if (counted !== undefined && counted.lockedAt !== null && counted.failures > maxFailures) {
      await audit('code.verify_locked', {
        failures: counted.failures,
        lockedUntil: iso(counted.lockedUntil),
      });
      return { valid: false, reason: 'locked' };
    }
    // The policy of now decides: a code issued before the user's group stopped allowing codes is dead.
    const policy = resolvePolicy(
      await this.store.groups.findPolicyOfUser(subjectId, POLICY_CATEGORY_SELF_SERVICE),
      this.codeDefaults,
    );
    const refusal =
      user === undefined
        ? 'unknown-user'
        : user.disabled
          ? 'disabled'
          : policy.enableECode
            ? undefined
            : 'codes-disabled';
    // Compared whatever the refusal, so that no kind of failure answers sooner than another.
    const matched = await findMatchingCode(
      this.store,
      this.codeHashKeys,
      subjectId,
      attempt.code,
      policy.codeAlphabet,
      now,
      policy.maxUnusedCodes,
    );
    const used =
      refusal === undefined && matched !== undefined && (await this.store.codes.consume(matched.id, now))
        ? matched
        : undefined;
    if (used !== undefined) {
      // A success forgets the failures, and ends the lock this very attempt may have started.
      await this.store.verifyFailures.clear(subjectId);
      await audit('code.used', { codeId: used.id, channel: used.channelType ?? 'screen' });
      return { valid: true, codeId: used.id };
    }
    const reason = refusal ?? 'no-usable-code';
    await audit(
      'code.verify_failed',
      counted === undefined ? { reason } : { reason, failures: counted.failures },
    );
    // Increments are atomic, so exactly one failure reaches the limit: that one started the lock.
    if (counted !== undefined && counted.failures === maxFailures && counted.lockedAt !== null) {
      await audit('code.verify_lockout', {
        failures: counted.failures,
        lockedUntil: iso(counted.lockedUntil),
      });
    }
    return { valid: false, reason };
  }

  /**
   * A verification that used a code but whose answer never reached its client (it left) gives the
   * use back: the code works again, as if the attempt had not happened. Audited.
   */
  async giveBackUse(
    used: { userId: string; codeId: string },
    attempt: Pick<VerifyAttempt, 'actor' | 'clientAddress' | 'now'>,
  ): Promise<void> {
    if (!(await this.store.codes.giveBackUse(used.codeId))) return;
    await this.store.audit.append(
      {
        event: 'code.use_given_back',
        userId: used.userId,
        actor: attempt.actor,
        clientAddress: attempt.clientAddress,
        details: { codeId: used.codeId },
      },
      attempt.now,
    );
  }

  /** Ends a user's lock and forgets their failures (the operator's way out of a lock). */
  async unlock(userId: string, actor: string, now: number): Promise<boolean> {
    const cleared = await this.store.verifyFailures.clear(userId);
    if (cleared) {
      await this.store.audit.append({ event: 'code.verify_unlocked', userId, actor, details: {} }, now);
    }
    return cleared;
  }
}
