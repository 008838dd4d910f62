import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished, vi } from 'vitest';
import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow } from '@dea/contract';
import { newId } from '../crypto/ids.js';
import { createTestDatabase, testPool } from '../testing/postgres-cluster.js';
import { openStore } from './open-store.js';
import { poolPreparing, PREPARED_MARK, preparedName } from './prepared-statements.js';
import type { Store } from './store.js';
import { recordPostgresQueries } from '../testing/recorded-sql.js';

/** A user with a session, a channel and a policy, for the hot reads. */
async function seedUser(store: Store): Promise<{ userId: string; idHash: string }> {
  const userId = newId();
  await store.users.create({
    id: userId,
    username: usernameOrThrow(`p-${userId}`),
    passwordHash: 'x',
    fullName: 'Pat',
    locale: 'en',
    createdAt: 1,
  });
  const groupId = newId();
  await store.groups.create({ id: groupId, name: `g-${groupId}`, priority: 0 });
  await store.groups.addMember(groupId, userId);
  await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, { enableECode: true });
  await store.channels.set({ id: newId(), userId, key: 'email', address: 'pat@example.com', createdAt: 1 });
  const idHash = newId();
  await store.sessions.create({ idHash, userId, createdAt: 1, lastSeenAt: 1 });
  return { userId, idHash };
}

describe('named prepared statements on PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await createTestDatabase(inject('postgresUrl'));
  });
  afterAll(() => database.drop());

  it('runs the hot reads and code issues by name, and nothing else', async () => {
    const store = await openStore({ dataDir: '.', databaseUrl: database.url, poolSize: 2 });
    try {
      const { userId, idHash } = await seedUser(store);
      const { queries: seen, stop } = recordPostgresQueries();
      onTestFinished(stop);
      expect((await store.sessions.find(idHash))?.user?.id).toBe(userId);
      expect(await store.groups.findPolicyOfUser(userId, POLICY_CATEGORY_SELF_SERVICE)).toEqual({
        enableECode: true,
      });
      const channels = await store.channels.listOfUser(userId);
      expect(channels.map((channel) => channel.key)).toEqual(['email']);
      // The page's session with its policies, and a service key with the user it verifies for.
      expect(
        (await store.sessions.findWithPolicies(idHash, [POLICY_CATEGORY_SELF_SERVICE, 'other']))?.policies,
      ).toEqual([{ enableECode: true }, undefined]);
      expect((await store.serviceKeys.findWithUser(newId(), { id: userId })).user?.id).toBe(userId);
      const now = Date.now();
      const code = {
        id: newId(),
        userId,
        codeHash: 'h',
        createdAt: now,
        expiresAt: now + 60_000,
        uses: 1,
        channelType: null,
      };
      expect(await store.codes.issue(code, 5, { event: 'code.issued', userId })).toEqual({
        issued: true,
        channels,
      });
      // A verification's: the user by name, then dea_verify_code.
      expect((await store.users.findByUsername(usernameOrThrow(`p-${userId}`)))?.id).toBe(userId);
      const verified = await store.codes.verify({
        userId,
        refusal: null,
        candidates: Array.from({ length: 6 }, () => 'no such hash'),
        keyCount: 1,
        defaultForm: 0,
        policyCategory: POLICY_CATEGORY_SELF_SERVICE,
        policyOf: () => ({ enabled: true, form: 0, compareAtLeast: 5 }),
        now,
        rule: { lockAfter: 10, lockMs: 60_000 },
        audit: { userId, actor: 'test', clientAddress: null },
      });
      expect(verified.outcome).toEqual({ used: false, reason: 'no-usable-code' });
      const named = seen.filter((query) => query.name !== undefined);
      expect(named).toHaveLength(8);
      for (const query of named) {
        expect(query.text.startsWith(PREPARED_MARK)).toBe(true);
        expect(query.name).toBe(preparedName(query.text));
      }
      // What is not marked goes as before.
      await store.groups.listOfUser(userId);
      expect(seen.filter((query) => query.name !== undefined)).toHaveLength(8);
    } finally {
      await store.close();
    }
  });

  it('names none with DEA_DB_PREPARED_STATEMENTS=off', async () => {
    const store = await openStore({
      dataDir: '.',
      databaseUrl: database.url,
      poolSize: 2,
      preparedStatements: { enabled: false },
    });
    try {
      const { userId, idHash } = await seedUser(store);
      const { queries: seen, stop } = recordPostgresQueries();
      onTestFinished(stop);
      expect((await store.sessions.find(idHash))?.user?.id).toBe(userId);
      expect((await store.channels.listOfUser(userId)).map((channel) => channel.key)).toEqual(['email']);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((query) => query.name !== undefined)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('keeps working when a newer version adds columns after they were prepared (rolling upgrade)', async () => {
    const turnedOff = vi.fn();
    const store = await openStore({
      dataDir: '.',
      databaseUrl: database.url,
      poolSize: 1,
      preparedStatements: { enabled: true, onTurnedOff: turnedOff },
    });
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const { userId, idHash } = await seedUser(store);
      expect((await store.sessions.find(idHash))?.user?.id).toBe(userId);
      expect(await store.channels.listOfUser(userId)).toHaveLength(1);
      await admin.query('alter table users add column added_later text');
      await admin.query('alter table sessions add column added_later text');
      await admin.query('alter table channels add column added_later text');
      expect((await store.sessions.find(idHash))?.user?.id).toBe(userId);
      expect(await store.channels.listOfUser(userId)).toHaveLength(1);
      expect(turnedOff).not.toHaveBeenCalled();
    } finally {
      await admin.end();
      await store.close();
    }
  });

  it('runs a statement PostgreSQL has lost again as a plain one, then names none and says so once', async () => {
    const pool = testPool(database.url, 1);
    const turnedOff = vi.fn();
    const preparing = poolPreparing(pool, { enabled: true, onTurnedOff: turnedOff });
    const client = await preparing.connect();
    try {
      const marked = `${PREPARED_MARK}select $1::int + 1 as n`;
      const { queries: seen, stop } = recordPostgresQueries();
      onTestFinished(stop);
      expect((await client.query<{ n: number }>(marked, [1])).rows).toEqual([{ n: 2 }]);
      // What a pooler that does not track them does: the connection no longer has the statement.
      await client.query('deallocate all', []);
      expect((await client.query<{ n: number }>(marked, [2])).rows).toEqual([{ n: 3 }]);
      expect(turnedOff).toHaveBeenCalledTimes(1);
      expect(turnedOff.mock.calls[0]?.[0]).toMatch(
        /^26000: prepared statement "dea_[0-9a-f]{32}" does not exist/,
      );
      expect((await client.query<{ n: number }>(marked, [3])).rows).toEqual([{ n: 4 }]);
      expect(turnedOff).toHaveBeenCalledTimes(1);
      expect(seen.map((query) => query.name !== undefined)).toEqual([true, false, true, false, false]);
    } finally {
      client.release();
      await preparing.end();
    }
  });

  it('lets every other error through unchanged', async () => {
    const pool = testPool(database.url, 1);
    const turnedOff = vi.fn();
    const preparing = poolPreparing(pool, { enabled: true, onTurnedOff: turnedOff });
    const client = await preparing.connect();
    try {
      await expect(client.query(`${PREPARED_MARK}select 1 / $1::int`, [0])).rejects.toMatchObject({
        code: '22012',
      });
      expect(turnedOff).not.toHaveBeenCalled();
    } finally {
      client.release();
      await preparing.end();
    }
  });
});
