import type { AuditEventName } from './audit-events.js';
import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import type { CodeDefaults } from './code-settings.js';
import type { Store, User, VerifyFailures } from '../store/store.js';
import { consumeMatchingCode } from './codes.js';
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

export const isLocked = (state: VerifyFailures | undefined, now: number): boolean =>
  state !== undefined && state.lockedAt !== null && (state.lockedUntil === null || state.lockedUntil > now);

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
    private readonly codeHashKey: Buffer,
    private readonly codeDefaults: CodeDefaults,
    private readonly settings: VerificationSettings,
  ) {}

  async verify(attempt: VerifyAttempt): Promise<VerifyOutcome> {
    const { user, actor, clientAddress, now } = attempt;
    const audit = (event: AuditEventName, details: Record<string, unknown>): Promise<void> =>
      this.store.audit.append({ event, userId: user?.id ?? null, actor, clientAddress, details }, now);
    if (user === undefined) {
      await audit('code.verify_failed', { reason: 'unknown-user' });
      return { valid: false, reason: 'unknown-user' };
    }
    const state = await this.store.verifyFailures.find(user.id);
    if (isLocked(state, now)) {
      await audit('code.verify_locked', {
        failures: state?.failures,
        lockedUntil: iso(state?.lockedUntil ?? null),
      });
      return { valid: false, reason: 'locked' };
    }
    // The policy of now decides: a code issued before the user's group stopped allowing codes is dead.
    const policy = resolvePolicy(
      await this.store.groups.findPolicyOfUser(user.id, POLICY_CATEGORY_SELF_SERVICE),
      this.codeDefaults,
    );
    const refusal = user.disabled ? 'disabled' : policy.enableECode ? undefined : 'codes-disabled';
    const used =
      refusal === undefined
        ? await consumeMatchingCode(
            this.store,
            this.codeHashKey,
            user.id,
            attempt.code,
            policy.codeAlphabet,
            now,
          )
        : undefined;
    if (used !== undefined) {
      await this.store.verifyFailures.clear(user.id);
      await audit('code.used', { codeId: used.id, channel: used.channelType ?? 'screen' });
      return { valid: true, codeId: used.id };
    }
    const reason = refusal ?? 'no-usable-code';
    const after = await this.store.verifyFailures.record(user.id, now, {
      lockAfter: this.settings.maxFailures,
      lockMs: this.settings.lockMs,
    });
    await audit('code.verify_failed', { reason, failures: after.failures });
    // Increments are atomic, so exactly one failure reaches the limit: that one starts the lock.
    if (after.failures === this.settings.maxFailures && after.lockedAt !== null) {
      await audit('code.verify_lockout', { failures: after.failures, lockedUntil: iso(after.lockedUntil) });
    }
    return { valid: false, reason };
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
