import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { sha256 } from '../../crypto/keyed-hash.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { Sessions } from './sessions.js';

const T0 = Date.UTC(2026, 11, 7, 8, 0, 0);
const MINUTE = 60_000;
const TIMEOUTS = { idleMs: 30 * MINUTE, absoluteMs: 12 * 60 * MINUTE };
const KEY = Buffer.alloc(32, 7);

describe.each(STORE_KINDS)('page sessions on %s', (kind) => {
  storeTest.override('storeKind', kind);

  /** A user with a session started at T0. */
  async function startedSession(store: Store) {
    const sessions = new Sessions(store, [KEY], TIMEOUTS);
    const userId = newId();
    await store.users.create({
      id: userId,
      username: usernameOrThrow(`sessions-${userId.slice(0, 8)}`),
      passwordHash: 'hash',
      fullName: 'Session Holder',
      locale: 'en',
      createdAt: T0,
    });
    const { sessionId, xsrfToken } = await sessions.start(userId, T0);
    const lastSeen = async () => (await store.sessions.find(sha256(sessionId)))?.lastSeenAt;
    return { sessions, sessionId, xsrfToken, lastSeen };
  }

  storeTest.concurrent(
    'a refused call leaves the session as it was: a wrong or missing token does not move its last-seen time',
    async ({ testStore: { store }, expect }) => {
      const { sessions, sessionId, xsrfToken, lastSeen } = await startedSession(store);

      // Long enough after the start that an accepted call would write last-seen.
      const later = T0 + 5 * MINUTE;
      for (const presented of [undefined, '', xsrfToken.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))]) {
        expect(await sessions.resolve(sessionId, later, { token: { presented } })).toEqual({
          state: 'bad-token',
        });
      }
      expect(await lastSeen()).toBe(T0);

      const accepted = await sessions.resolve(sessionId, later, { token: { presented: xsrfToken } });
      expect(accepted.state).toBe('active');
      expect(await lastSeen()).toBe(later);
      // A read (no token asked) keeps the session alive too.
      expect((await sessions.resolve(sessionId, later + 2 * MINUTE)).state).toBe('active');
      expect(await lastSeen()).toBe(later + 2 * MINUTE);
      // Within a minute of the last write, nothing is written.
      expect((await sessions.resolve(sessionId, later + 2 * MINUTE + 30_000)).state).toBe('active');
      expect(await lastSeen()).toBe(later + 2 * MINUTE);
    },
  );

  storeTest.concurrent(
    'an expired session stays expired whatever token it carries, and is not touched',
    async ({ testStore: { store }, expect }) => {
      const { sessions, sessionId, xsrfToken, lastSeen } = await startedSession(store);
      const idle = T0 + TIMEOUTS.idleMs;
      expect(await sessions.resolve(sessionId, idle, { token: { presented: xsrfToken } })).toEqual({
        state: 'expired',
      });
      expect(await sessions.resolve(sessionId, idle, { token: { presented: 'wrong' } })).toEqual({
        state: 'expired',
      });
      expect(await lastSeen()).toBe(T0);
      expect(await sessions.resolve('unknown-session', T0, { token: { presented: xsrfToken } })).toEqual({
        state: 'none',
      });
    },
  );
});
