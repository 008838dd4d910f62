import { randomToken } from '../../crypto/ids.js';
import { constantTimeEqual, keyedHash, sha256 } from '../../crypto/keyed-hash.js';
import type { Session, SessionWithUser, Store, StoredPolicyPair, User } from '../../store/store.js';

/** Writing last-seen at most this often keeps reads off the write path. */
const TOUCH_INTERVAL_MS = 60_000;
/** Session ids carry 256 bits of randomness. */
const SESSION_ID_BYTES = 32;

/** A user's stored policies of two categories as read with their session: whose, and which. */
export interface PoliciesReadWithSession {
  userId: string;
  categories: readonly [string, string];
  stored: StoredPolicyPair;
}

export type SessionState =
  | { state: 'none' }
  | { state: 'expired' }
  | { state: 'bad-token' }
  | { state: 'active'; session: Session; user: User; policies?: PoliciesReadWithSession };

export interface ResolveOptions {
  /** The user's policies of these two categories, read with the session in the same statement. */
  policies?: readonly [string, string];
  /** A call that changes something: the cross-site request token it carried (`presented` undefined: none). */
  token?: { presented: string | undefined };
}

export interface SessionTimeouts {
  idleMs: number;
  absoluteMs: number;
}

/**
 * Server-side sessions. The browser holds a random id; the store holds only its SHA-256, so a
 * dump of the store does not yield a usable session.
 */
export class Sessions {
  constructor(
    private readonly store: Store,
    /** The current key first; during a rotation, the previous secret's after it. */
    private readonly xsrfKeys: readonly Buffer[],
    private readonly timeouts: SessionTimeouts,
  ) {}

  async start(userId: string, now: number): Promise<{ sessionId: string; xsrfToken: string }> {
    const sessionId = randomToken(SESSION_ID_BYTES);
    await this.store.sessions.create({ idHash: sha256(sessionId), userId, createdAt: now, lastSeenAt: now });
    return { sessionId, xsrfToken: this.xsrfTokenOf(sessionId) };
  }

  /**
   * The session a browser presents, with its user. A refused request leaves the session as it
   * was: its last-seen time moves only once the session is found active and, where the call
   * needs one, its cross-site request token matches.
   */
  async resolve(
    sessionId: string | undefined,
    now: number,
    options: ResolveOptions = {},
  ): Promise<SessionState> {
    const { policies, token } = options;
    if (!sessionId) return { state: 'none' };
    const idHash = sha256(sessionId);
    const found: (SessionWithUser & { policies?: StoredPolicyPair }) | undefined =
      policies === undefined
        ? await this.store.sessions.find(idHash)
        : await this.store.sessions.findWithPolicies(idHash, policies);
    if (found === undefined) return { state: 'none' };
    if (this.hasExpired(found, now)) return { state: 'expired' };
    const { user, policies: read, ...session } = found;
    if (user === undefined || user.disabled) return { state: 'expired' };
    if (token !== undefined && !this.xsrfTokenMatches(sessionId, token.presented))
      return { state: 'bad-token' };
    if (now - session.lastSeenAt >= TOUCH_INTERVAL_MS) {
      await this.store.sessions.touch(session.idHash, now);
    }
    return read === undefined || policies === undefined
      ? { state: 'active', session, user }
      : { state: 'active', session, user, policies: { userId: user.id, categories: policies, stored: read } };
  }

  hasExpired(session: Session, now: number): boolean {
    return (
      session.endedAt !== null ||
      now - session.lastSeenAt >= this.timeouts.idleMs ||
      now - session.createdAt >= this.timeouts.absoluteMs
    );
  }

  /**
   * Ends the session, and with it every registration session of its user (registration-sign-in.ts):
   * a strong sign-in added to a page session ends when the person signs out. Answers how many
   * registration sessions ended.
   */
  async end(sessionId: string, now: number): Promise<number> {
    const userId = await this.store.sessions.end(sha256(sessionId), now);
    return userId === undefined ? 0 : this.store.registration.endAllOfUser(userId, now);
  }

  /** The cross-site request token is bound to the session: an HMAC of its id. */
  xsrfTokenOf(sessionId: string): string {
    return keyedHash(this.xsrfKeys[0] ?? Buffer.alloc(0), 'xsrf', sessionId);
  }

  /** The token of the current key, or (during a rotation) the one a session got before it. */
  private xsrfTokenMatches(sessionId: string, token: string | undefined): boolean {
    if (token === undefined) return false;
    let matches = false;
    for (const key of this.xsrfKeys)
      matches = constantTimeEqual(token, keyedHash(key, 'xsrf', sessionId)) || matches;
    return matches;
  }
}
