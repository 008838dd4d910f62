import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);

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
});
