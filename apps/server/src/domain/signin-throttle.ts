import type { Store } from '../store/store.js';

export interface SigninThrottleSettings {
  /** Failures within the window that lock a user name. */
  userLockAfter: number;
  /** Failures within the window that lock a client address (password spraying). */
  addressLockAfter: number;
  windowMs: number;
  lockMs: number;
  /** First delay added to a failed answer from the third failure on; doubles each time. */
  slowdownMs: number;
}

const SLOWDOWN_FROM_FAILURE = 3;
const MAX_SLOWDOWN_MS = 8_000;

/** User names are compared case-insensitively here, so 'Demo' and 'demo' share one counter. */
const userSubject = (username: string): string => `user:${username.trim().toLowerCase()}`;
const addressSubject = (address: string): string => `address:${address}`;

/**
 * Slows down, then locks, sign-in attempts per user name and per client address. Counts are
 * kept in the store, so every instance sees them, and they are kept for user names that do not
 * exist exactly as for those that do: the answers never reveal whether a user exists.
 */
export class SigninThrottle {
  constructor(
    private readonly store: Store,
    private readonly settings: SigninThrottleSettings,
  ) {}

  /** Milliseconds until the user name and the address may try again; 0 when they may now. */
  async lockedFor(username: string, address: string, now: number): Promise<number> {
    const [user, client] = await Promise.all([
      this.store.signinFailures.find(userSubject(username)),
      this.store.signinFailures.find(addressSubject(address)),
    ]);
    return Math.max(0, (user?.lockedUntil ?? 0) - now, (client?.lockedUntil ?? 0) - now);
  }

  /** Counts a failure; answers how long to hold the answer back and whether it now locks. */
  async recordFailure(
    username: string,
    address: string,
    now: number,
  ): Promise<{ delayMs: number; lockedForMs: number }> {
    const { windowMs, lockMs, userLockAfter, addressLockAfter } = this.settings;
    const [user, client] = await Promise.all([
      this.store.signinFailures.record(userSubject(username), now, {
        windowMs,
        lockMs,
        lockAfter: userLockAfter,
      }),
      this.store.signinFailures.record(addressSubject(address), now, {
        windowMs,
        lockMs,
        lockAfter: addressLockAfter,
      }),
    ]);
    const lockedForMs = Math.max(0, (user.lockedUntil ?? 0) - now, (client.lockedUntil ?? 0) - now);
    // An address slows down as it nears its own lock, as a user name does: its count is shifted so
    // that both reach the slow-down the same number of failures before they lock.
    const addressFailures = client.failures - (addressLockAfter - userLockAfter);
    const failures = Math.max(user.failures, addressFailures);
    const delayMs =
      failures < SLOWDOWN_FROM_FAILURE || lockedForMs > 0
        ? 0
        : Math.min(MAX_SLOWDOWN_MS, this.settings.slowdownMs * 2 ** (failures - SLOWDOWN_FROM_FAILURE));
    return { delayMs, lockedForMs };
  }

  /** A successful sign-in clears the user name's count; the address keeps its own. */
  async recordSuccess(username: string): Promise<void> {
    await this.store.signinFailures.clear(userSubject(username));
  }
}
