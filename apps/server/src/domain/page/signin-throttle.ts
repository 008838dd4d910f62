import { canonicalUsername } from '@dea/contract';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { SigninAttemptLimit, Store } from '../../store/store.js';

export interface SigninThrottleSettings {
  /** Attempts of one user name from one client address within the window that lock the pair. */
  userLockAfter: number;
  /**
   * Attempts from one client address within the window after which the user names that failed from
   * it are slowed down (repeated guessing from one address); names that have not failed pass.
   */
  addressLockAfter: number;
  windowMs: number;
  lockMs: number;
  /**
   * Once a user name has had `userLockAfter` attempts from all addresses together, its passwords
   * are checked at most once per this delay, doubling with each further attempt...
   */
  slowdownMs: number;
  /** ...up to this. */
  slowdownMaxMs: number;
}

export type SigninAdmission =
  | { allowed: true }
  | {
      allowed: false;
      retryAfterMs: number;
      reason: 'user-address' | 'user' | 'address' | 'entry-address' | 'entry';
    };

/**
 * What the limits count a typed name under: its canonical form (RFC 8265), so every spelling of
 * one name shares one count; a name the profile refuses (which no user can have) as typed.
 */
export function limitKeyOf(typed: string): string {
  return canonicalUsername(typed) ?? typed.trim();
}

/**
 * Limits on sign-in attempts (ADR 0008). Every attempt is counted before its password is checked,
 * atomically in the store, so however many arrive at once and on whichever instance:
 * - one user name from one client address gets `userLockAfter` checks, then waits `lockMs`;
 * - one user name from all addresses together gets `userLockAfter` checks, then one check per
 *   slow-down delay (doubling): a botnet cannot guess quickly, and the owner on a clean address
 *   still gets in after at most `slowdownMaxMs`;
 * - one client address gets `addressLockAfter` checks for all user names; after that, a user name
 *   that failed from the address gets one check per slow-down delay (doubling up to `lockMs`),
 *   while one that has not failed from it is checked as usual: the address is slowed down, and a
 *   user who has not failed is never refused because of others behind the same address.
 * User names are kept only as keyed hashes, known or not: the answers never reveal whether a user
 * exists, and a password typed into the user-name field is never stored.
 */
export class SigninThrottle {
  constructor(
    private readonly store: Store,
    private readonly settings: SigninThrottleSettings,
    private readonly identifierKey: Buffer,
  ) {}

  /** The limits of one person: from one address, and from all addresses together. */
  private personLimits(kind: 'user' | 'entry', key: string, address: string) {
    const { userLockAfter, windowMs, lockMs, slowdownMs, slowdownMaxMs } = this.settings;
    const hashed = keyedHash(this.identifierKey, key);
    return {
      userAddress: {
        subject: `${kind}-address:${hashed}:${address}`,
        max: userLockAfter,
        windowMs,
        lockMsAt: (): number => lockMs,
      },
      user: {
        subject: `${kind}:${hashed}`,
        max: userLockAfter,
        windowMs,
        lockMsAt: (attempts: number) =>
          Math.min(slowdownMaxMs, slowdownMs * 2 ** Math.min(30, attempts - userLockAfter)),
      },
    } satisfies Record<string, SigninAttemptLimit>;
  }

  /** Counted under the name's limit key (limitKeyOf): 'Demo', 'ｄemo' and 'demo' share one count. */
  private limitsOf(username: string, address: string) {
    const { addressLockAfter, windowMs, lockMs, slowdownMs } = this.settings;
    const person = this.personLimits('user', limitKeyOf(username), address);
    const userAddressSubject = person.userAddress.subject;
    return {
      ...person,
      address: {
        subject: `address:${address}`,
        max: addressLockAfter,
        windowMs,
        // A slow-down, doubling up to the lock time (the fixed lock when slow-downs are off)...
        lockMsAt: (attempts: number) =>
          slowdownMs === 0
            ? lockMs
            : Math.min(lockMs, slowdownMs * 2 ** Math.min(30, attempts - addressLockAfter)),
        // ...for the user names that failed from the address only: one office behind one
        // address never locks out a colleague who typed the password right the first time.
        refusesOnlyAfterFailuresOf: userAddressSubject,
      },
    } satisfies Record<string, SigninAttemptLimit>;
  }

  /**
   * Counts the attempt (as a failure until `succeeded` says otherwise) when the user name and
   * address may try now; otherwise says how long they must wait. Only an admitted attempt may
   * have its password checked.
   */
  async admit(username: string, address: string, now: number): Promise<SigninAdmission> {
    const limits = this.limitsOf(username, address);
    const outcome = await this.store.signinFailures.reserve(Object.values(limits), now);
    if (outcome.allowed) return outcome;
    const reason =
      outcome.subject === limits.userAddress.subject
        ? 'user-address'
        : outcome.subject === limits.user.subject
          ? 'user'
          : 'address';
    return { allowed: false, retryAfterMs: outcome.retryAfterMs, reason };
  }

  /**
   * Counts the attempt on the directory entry a name was found as (its entryUUID or objectGUID),
   * after the name's own admission: the directory matches spellings the canonical form does not
   * make, and each of them reaches the same entry, so the entry is limited as a user name is.
   */
  async admitEntry(externalId: string, address: string, now: number): Promise<SigninAdmission> {
    const limits = this.personLimits('entry', externalId, address);
    const outcome = await this.store.signinFailures.reserve(Object.values(limits), now);
    if (outcome.allowed) return outcome;
    const reason = outcome.subject === limits.userAddress.subject ? 'entry-address' : 'entry';
    return { allowed: false, retryAfterMs: outcome.retryAfterMs, reason };
  }

  /**
   * The password was right: the user name's counts (and the entry's, when there was one) are
   * cleared; the address takes back this attempt.
   */
  async succeeded(username: string, address: string, externalId?: string): Promise<void> {
    const limits = this.limitsOf(username, address);
    const entry =
      externalId === undefined ? [] : Object.values(this.personLimits('entry', externalId, address));
    await Promise.all([
      this.store.signinFailures.clear(limits.userAddress.subject),
      this.store.signinFailures.clear(limits.user.subject),
      ...entry.map((limit) => this.store.signinFailures.clear(limit.subject)),
      this.store.signinFailures.release(limits.address.subject, limits.address.max),
    ]);
  }

  /** The admitted attempt's password was never checked (the server was busy): nothing counts. */
  async notChecked(username: string, address: string, externalId?: string): Promise<void> {
    const entry =
      externalId === undefined ? [] : Object.values(this.personLimits('entry', externalId, address));
    await Promise.all(
      [...Object.values(this.limitsOf(username, address)), ...entry].map((limit) =>
        this.store.signinFailures.release(limit.subject, limit.max),
      ),
    );
  }
}
