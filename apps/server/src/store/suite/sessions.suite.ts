import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { cutoffsAt } from '../../testing/purge-cutoffs.js';
import { recordPostgresQueries } from '../../testing/recorded-sql.js';
import type { Store } from '../store.js';
import { storeCase, T0 } from './store-fixture.js';

/** The page's sessions. */
export function sessionsSuite(): void {
  describe.concurrent('sessions', () => {
    async function addSession(
      store: Store,
      userId: string,
      createdAt: number,
      lastSeenAt = createdAt,
    ): Promise<string> {
      const idHash = newId();
      await store.sessions.create({ idHash, userId, createdAt, lastSeenAt });
      return idHash;
    }

    storeCase(
      "finds a session with the user's policies of two categories in one statement, the reads of one turn in one on PostgreSQL",
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const low = newId();
        const high = newId();
        for (const [id, priority] of [
          [low, 1],
          [high, 9],
        ] as const) {
          await store.groups.create({ id, name: `session-policies-${id}`, priority });
          await store.groups.addMember(id, user.id);
        }
        await store.groups.setPolicy(low, 'first', { from: 'low' });
        await store.groups.setPolicy(high, 'first', { from: 'high' });
        await store.groups.setPolicy(low, 'second', { from: 'low', second: true });
        // Another user in another group, read in the same turn: each session gets its own user's.
        const other = await addUser();
        const others = newId();
        await store.groups.create({ id: others, name: `session-policies-${others}`, priority: 50 });
        await store.groups.addMember(others, other.id);
        await store.groups.setPolicy(others, 'first', { from: 'other' });
        const sessions = await Promise.all([
          addSession(store, user.id, T0),
          addSession(store, other.id, T0 + 1),
          addSession(store, user.id, T0 + 2),
        ]);
        const recording = recordPostgresQueries();
        let found: Awaited<ReturnType<typeof store.sessions.findWithPolicies>>[];
        try {
          found = await Promise.all(
            sessions.map((idHash) => store.sessions.findWithPolicies(idHash, ['first', 'second'])),
          );
        } finally {
          recording.stop();
        }
        for (const [index, session] of found.entries()) {
          const plain = await store.sessions.find(sessions[index]!);
          expect(plain?.userId).toBe(index === 1 ? other.id : user.id);
          const policies =
            index === 1 ? [{ from: 'other' }, undefined] : [{ from: 'high' }, { from: 'low', second: true }];
          expect(session).toEqual({ ...plain, policies });
        }
        if (store.kind === 'postgres')
          expect(
            recording.queries.filter(({ values }) => JSON.stringify(values ?? null).includes(sessions[0])),
          ).toHaveLength(1);
        // None of a category, none of a user without groups, no session: each answered as such.
        const loner = await addUser();
        const lonerSession = await addSession(store, loner.id, T0);
        expect((await store.sessions.findWithPolicies(sessions[0], ['second', 'third']))?.policies).toEqual([
          { from: 'low', second: true },
          undefined,
        ]);
        expect((await store.sessions.findWithPolicies(lonerSession, ['first', 'second']))?.policies).toEqual([
          undefined,
          undefined,
        ]);
        expect(await store.sessions.findWithPolicies(newId(), ['first', 'second'])).toBeUndefined();
      },
    );

    storeCase('creates and finds a session', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0, T0 + 5);
      const session = await store.sessions.find(idHash);
      expect(session).toEqual({
        idHash,
        userId: user.id,
        createdAt: T0,
        lastSeenAt: T0 + 5,
        endedAt: null,
        user: await store.users.findById(user.id),
      });
      expect(typeof session?.createdAt).toBe('number');
      expect(typeof session?.lastSeenAt).toBe('number');
      expect(await store.sessions.find(newId())).toBeUndefined();
    });

    storeCase('moves last seen forward only', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0);
      await store.sessions.touch(idHash, T0 + 100);
      expect((await store.sessions.find(idHash))?.lastSeenAt).toBe(T0 + 100);
      await store.sessions.touch(idHash, T0 + 50);
      expect((await store.sessions.find(idHash))?.lastSeenAt).toBe(T0 + 100);
      await store.sessions.touch(idHash, T0 + 200);
      const session = await store.sessions.find(idHash);
      expect(session?.lastSeenAt).toBe(T0 + 200);
      expect(session?.createdAt).toBe(T0);
      await expect(store.sessions.touch(newId(), T0)).resolves.toBeUndefined();
    });

    storeCase('ends a session once', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0);
      const other = await addSession(store, user.id, T0);
      await store.sessions.end(idHash, T0 + 10);
      const ended = await store.sessions.find(idHash);
      expect(ended?.endedAt).toBe(T0 + 10);
      expect(typeof ended?.endedAt).toBe('number');
      await store.sessions.end(idHash, T0 + 20);
      expect((await store.sessions.find(idHash))?.endedAt).toBe(T0 + 10);
      expect((await store.sessions.find(other))?.endedAt).toBeNull();
    });

    storeCase('purges ended and idle sessions and keeps live ones', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const ended = await addSession(store, user.id, T0, T0 + 10);
      await store.sessions.end(ended, T0 + 20);
      const idle = await addSession(store, user.id, T0, T0 + 30);
      const live = await addSession(store, user.id, T0, T0 + 30);
      await store.sessions.touch(live, T0 + 150);

      const cutoffs = cutoffsAt(T0 + 100, {
        sessionsEndedBefore: T0 + 100,
        sessionsLastSeenBefore: T0 + 100,
      });
      const purged = await store.retention.removeBatch('sessions', cutoffs, 1000);
      expect(purged).toBe(2);
      expect(typeof purged).toBe('number');
      expect(await store.sessions.find(ended)).toBeUndefined();
      expect(await store.sessions.find(idle)).toBeUndefined();
      expect(await store.sessions.find(live)).toMatchObject({ lastSeenAt: T0 + 150, endedAt: null });
      expect(await store.retention.removeBatch('sessions', cutoffs, 1000)).toBe(0);
      // Started before the absolute limit: gone however recently it was seen.
      expect(
        await store.retention.removeBatch('sessions', { ...cutoffs, sessionsStartedBefore: T0 + 1 }, 1000),
      ).toBe(1);
    });

    storeCase('removes the sessions with the user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0);
      await store.users.remove(user.id);
      expect(await store.sessions.find(idHash)).toBeUndefined();
    });
  });
}
