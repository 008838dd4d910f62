import { POLICY_CATEGORY_SELF_SERVICE, type PolicyOptions } from '@dea/contract';
import type { CodeDefaults } from './code-settings.js';
import type { Store, User, VerifyPolicy } from '../../store/store.js';
import { CODE_FORMS, codeFormOf, normalizeCodeAs } from '../../crypto/code-generator.js';
import { newId } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import { resolvePolicy } from '../policies/policy.js';

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

  /** What a user's stored policy means for a verification (policy.ts decides). */
  private readonly policyOf = (stored: Record<string, unknown> | undefined): VerifyPolicy => {
    const policy = resolvePolicy(stored, this.codeDefaults);
    // A resolved policy is the same object for the same stored options (policy.ts): made once.
    let verifyPolicy = this.verifyPolicies.get(policy);
    if (verifyPolicy === undefined) {
      verifyPolicy = {
        enabled: policy.enableECode,
        form: codeFormOf(policy.codeAlphabet),
        compareAtLeast: policy.maxUnusedCodes,
      };
      this.verifyPolicies.set(policy, verifyPolicy);
    }
    return verifyPolicy;
  };

  private readonly verifyPolicies = new WeakMap<PolicyOptions, VerifyPolicy>();

  /**
   * One round trip to the store (codes.verify): the attempt counted before any code is compared,
   * the user's policy, the comparison, the use, the failures and the audit entries. The input is
   * hashed in every form an alphabet may normalize it to (CODE_FORMS), with every accepted key:
   * the same hashes for every user, known or not; the store picks the form of the user's alphabet.
   */
  async verify(attempt: VerifyAttempt): Promise<VerifyOutcome> {
    const { user, actor, clientAddress, now } = attempt;
    // An unknown name takes the time a known one does: the same round trip and comparisons,
    // against a user id nobody has (no sleep, which a loaded server would not match).
    const subjectId = user?.id ?? this.decoyUserId;
    const hashes = new Map<string, string[]>();
    const candidates: string[] = [];
    for (let form = 0; form < CODE_FORMS; form += 1) {
      const normalized = normalizeCodeAs(attempt.code, form);
      let hashed = hashes.get(normalized);
      if (hashed === undefined) {
        hashed = this.codeHashKeys.map((key) => keyedHash(key, subjectId, normalized));
        hashes.set(normalized, hashed);
      }
      candidates.push(...hashed);
    }
    const { outcome } = await this.store.codes.verify({
      userId: subjectId,
      refusal: user === undefined ? 'unknown-user' : user.disabled ? 'disabled' : null,
      candidates,
      keyCount: this.codeHashKeys.length,
      defaultForm: codeFormOf(this.codeDefaults.codeAlphabet),
      policyCategory: POLICY_CATEGORY_SELF_SERVICE,
      policyOf: this.policyOf,
      now,
      rule: { lockAfter: this.settings.maxFailures, lockMs: this.settings.lockMs },
      audit: { userId: user?.id ?? null, actor, clientAddress },
    });
    return outcome.used ? { valid: true, codeId: outcome.codeId } : { valid: false, reason: outcome.reason };
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
