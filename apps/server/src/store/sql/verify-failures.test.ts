import { join } from 'node:path';
import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow } from '@dea/contract';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { TestStore } from '../../testing/stores.js';
import { EMBEDDED_STORE_FILE } from '../open-store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);

/** The rows of verify_failures as stored (not as the repository answers them). */
async function storedRows(testStore: TestStore, userId: string): Promise<{ failures: number }[]> {
  const text = 'select failures from verify_failures where user_id = $1';
  if (testStore.databaseUrl === undefined) {
    const file = new SqliteDatabase(join(testStore.dataDir, EMBEDDED_STORE_FILE), { readonly: true });
    try {
      return file.prepare<[string], { failures: number }>(text.replace('$1', '?')).all(userId);
    } finally {
      file.close();
    }
  }
  const client = new pg.Client({ connectionString: testStore.databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ failures: number }>(text, [userId])).rows;
  } finally {
    await client.end();
  }
}

describe.each(STORE_KINDS)('verification failures on %s', (kind) => {
  storeTest.override('storeKind', kind);
  const test = storeTest
    .extend('failures', ({ testStore }) => testStore.store.verifyFailures)
    .extend('user', ({ testStore }) => async (): Promise<string> => {
      const id = newId(T0);
      await testStore.store.users.create({
        id,
        username: usernameOrThrow(`vf-${id}`),
        passwordHash: 'x',
        fullName: 'Verify Failures',
        locale: 'en',
        createdAt: T0,
      });
      return id;
    });

  test('counts consecutive failures and locks at the limit for the lock time', async ({ failures, user }) => {
    const id = await user();
    const rule = { lockAfter: 3, lockMs: 15 * MINUTE };
    expect(await failures.find(id)).toBeUndefined();
    expect(await failures.record(id, T0, rule)).toEqual({
      failures: 1,
      lastFailureAt: T0,
      lockedAt: null,
      lockedUntil: null,
    });
    expect(await failures.record(id, T0 + MINUTE, rule)).toMatchObject({ failures: 2, lockedAt: null });
    // Failures hours apart still count: only a success, an unlock or the end of a lock resets.
    const third = await failures.record(id, T0 + 300 * MINUTE, rule);
    expect(third).toEqual({
      failures: 3,
      lastFailureAt: T0 + 300 * MINUTE,
      lockedAt: T0 + 300 * MINUTE,
      lockedUntil: T0 + 315 * MINUTE,
    });
    expect(await failures.find(id)).toEqual(third);
  });

  test('keeps a running lock as it is, and starts a new count once it has run out', async ({
    failures,
    user,
  }) => {
    const id = await user();
    const rule = { lockAfter: 2, lockMs: 10 * MINUTE };
    await failures.record(id, T0, rule);
    await failures.record(id, T0, rule);
    expect(await failures.record(id, T0 + 5 * MINUTE, rule)).toMatchObject({
      failures: 3,
      lockedAt: T0,
      lockedUntil: T0 + 10 * MINUTE,
    });
    expect(await failures.record(id, T0 + 10 * MINUTE, rule)).toMatchObject({
      failures: 1,
      lockedAt: null,
      lockedUntil: null,
    });
  });

  test('locks until cleared when the rule has no lock time, and locks at once with a limit of 1', async ({
    failures,
    user,
  }) => {
    const id = await user();
    const forever = { lockAfter: 1, lockMs: null };
    expect(await failures.record(id, T0, forever)).toEqual({
      failures: 1,
      lastFailureAt: T0,
      lockedAt: T0,
      lockedUntil: null,
    });
    expect(await failures.record(id, T0 + 1e9, forever)).toMatchObject({
      failures: 2,
      lockedAt: T0,
      lockedUntil: null,
    });
    expect(await failures.clear(id)).toBe(true);
    expect(await failures.clear(id)).toBe(false);
    expect(await failures.find(id)).toBeUndefined();
  });

  test('counts every one of many concurrent failures and starts the lock once', async ({
    failures,
    user,
  }) => {
    const id = await user();
    const rule = { lockAfter: 10, lockMs: MINUTE };
    const states = await Promise.all(Array.from({ length: 25 }, () => failures.record(id, T0, rule)));
    expect(states.map((state) => state?.failures ?? 0).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 25 }, (_, index) => index + 1),
    );
    expect(await failures.find(id)).toMatchObject({ failures: 25, lockedAt: T0, lockedUntil: T0 + MINUTE });
  });

  test('forgets the failures of a removed user', async ({ failures, user, testStore }) => {
    const id = await user();
    await failures.record(id, T0, { lockAfter: 5, lockMs: MINUTE });
    await testStore.store.users.remove(id);
    expect(await failures.find(id)).toBeUndefined();
  });

  test('counts nothing for an id no user has, with the same statement', async ({ failures }) => {
    const nobody = newId(T0);
    expect(await failures.record(nobody, T0, { lockAfter: 1, lockMs: MINUTE })).toBeUndefined();
    expect(await failures.find(nobody)).toBeUndefined();
  });

  test("a verification's success keeps the user's row at zero, and the next failure counts from one on it", async ({
    failures,
    user,
    testStore,
  }) => {
    const { store } = testStore;
    const id = await user();
    const groupId = newId(T0);
    await store.groups.create({ id: groupId, name: `vf-${groupId}`, priority: 0 });
    await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, { enableECode: true });
    await store.groups.addMember(groupId, id);
    const code = { id: newId(T0), userId: id, codeHash: 'the-right-hash', createdAt: T0 };
    await store.codes.issue({ ...code, expiresAt: T0 + 60 * MINUTE, uses: 2, channelType: null }, 5, {
      event: 'code.issued',
      userId: id,
    });
    const rule = { lockAfter: 5, lockMs: MINUTE };
    const verify = (hash: string, now: number) =>
      store.codes.verify({
        userId: id,
        refusal: null,
        candidates: Array.from({ length: 6 }, () => hash),
        keyCount: 1,
        defaultForm: 0,
        policyCategory: POLICY_CATEGORY_SELF_SERVICE,
        policyOf: () => ({ enabled: true, form: 0, compareAtLeast: 5 }),
        now,
        rule,
        audit: { userId: id, actor: 'test', clientAddress: null },
      });
    expect((await verify('a-wrong-hash', T0)).outcome).toEqual({ used: false, reason: 'no-usable-code' });
    expect((await verify('a-wrong-hash', T0)).outcome).toEqual({ used: false, reason: 'no-usable-code' });
    expect(await failures.find(id)).toMatchObject({ failures: 2 });
    expect((await verify('the-right-hash', T0 + MINUTE)).outcome).toEqual({ used: true, codeId: code.id });
    // Forgotten, as before, but the row stays: the next attempt updates it instead of inserting it.
    expect(await failures.find(id)).toBeUndefined();
    expect(await storedRows(testStore, id)).toEqual([{ failures: 0 }]);
    expect((await verify('a-wrong-hash', T0 + 2 * MINUTE)).outcome).toEqual({
      used: false,
      reason: 'no-usable-code',
    });
    expect(await failures.find(id)).toMatchObject({ failures: 1, lockedAt: null });
    // An operator's unlock of a user without failures has nothing to forget.
    expect((await verify('the-right-hash', T0 + 3 * MINUTE)).outcome).toEqual({
      used: true,
      codeId: code.id,
    });
    expect(await failures.clear(id)).toBe(false);
    expect(await storedRows(testStore, id)).toEqual([{ failures: 0 }]);
  });
});
