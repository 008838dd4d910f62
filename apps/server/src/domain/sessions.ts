import { randomToken } from '../crypto/ids.js';
import { constantTimeEqual, keyedHash, sha256 } from '../crypto/keyed-hash.js';
import type { Session, Store, User } from '../store/store.js';

/** Writing last-seen at most this often keeps reads off the write path. */
const TOUCH_INTERVAL_MS = 60_000;
/** Session ids carry 256 bits of randomness. */
const SESSION_ID_BYTES = 32;

export type SessionState =
  | { state: 'none' }
  | { state: 'expired' }
  | { state: 'active'; session: Session; user: User };

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

  async resolve(sessionId: string | undefined, now: number): Promise<SessionState> {
    if (!sessionId) return { state: 'none' };
    const session = await this.store.sessions.find(sha256(sessionId));
    if (session === undefined) return { state: 'none' };
    if (this.hasExpired(session, now)) return { state: 'expired' };
    const { user, ...rest } = session;
    if (user === undefined || user.disabled) return { state: 'expired' };
    if (now - session.lastSeenAt >= TOUCH_INTERVAL_MS) {
      await this.store.sessions.touch(session.idHash, now);
    }
    return { state: 'active', session: rest, user };
  }

  hasExpired(session: Session, now: number): boolean {
    return (
      session.endedAt !== null ||
      now - session.lastSeenAt >= this.timeouts.idleMs ||
      now - session.createdAt >= this.timeouts.absoluteMs
    );
  }

  async end(sessionId: string, now: number): Promise<void> {
    await this.store.sessions.end(sha256(sessionId), now);
  }

  /** The cross-site request token is bound to the session: an HMAC of its id. */
  xsrfTokenOf(sessionId: string): string {
    return keyedHash(this.xsrfKeys[0] ?? Buffer.alloc(0), 'xsrf', sessionId);
  }

  /** The token of the current key, or (during a rotation) the one a session got before it. */
  xsrfTokenMatches(sessionId: string, token: string | undefined): boolean {
    if (token === undefined) return false;
    let matches = false;
    for (const key of this.xsrfKeys)
      matches = constantTimeEqual(token, keyedHash(key, 'xsrf', sessionId)) || matches;
    return matches;
  }
}
