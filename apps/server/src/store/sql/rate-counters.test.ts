import { describe, expect } from 'vitest';
import { storeTest } from '../../testing/fixtures.js';
import { cutoffsAt } from '../../testing/purge-cutoffs.js';
import { STORE_KINDS } from '../../testing/stores.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);

describe.each(STORE_KINDS)('rate counters on %s', (kind) => {
  storeTest.override('storeKind', kind);
  const test = storeTest.extend('counters', ({ testStore }) => testStore.store.rateCounters);
  let next = 0;
  const subject = (name: string) => `test:${name}:${(next += 1)}`;

  test('allows max takes within the window, then refuses with the time left, then starts a new window', async ({
    counters,
  }) => {
    const limit = { subject: subject('user'), max: 3, windowMs: 10 * MINUTE };
    for (let index = 0; index < 3; index += 1) {
      expect(await counters.take([limit], T0 + index * MINUTE)).toEqual({ allowed: true });
    }
    expect(await counters.take([limit], T0 + 4 * MINUTE)).toEqual({
      allowed: false,
      subject: limit.subject,
      retryAfterMs: 6 * MINUTE,
    });
    expect(await counters.take([limit], T0 + 10 * MINUTE - 1)).toMatchObject({
      allowed: false,
      retryAfterMs: 1,
    });
    expect(await counters.take([limit], T0 + 10 * MINUTE)).toEqual({ allowed: true });
  });

  test('takes from every limit or from none: a refusal does not use up the others', async ({ counters }) => {
    const wide = { subject: subject('wide'), max: 10, windowMs: MINUTE };
    const narrow = { subject: subject('narrow'), max: 1, windowMs: MINUTE };
    expect(await counters.take([wide, narrow], T0)).toEqual({ allowed: true });
    for (let index = 0; index < 5; index += 1) {
      expect(await counters.take([narrow, wide], T0)).toMatchObject({
        allowed: false,
        subject: narrow.subject,
      });
    }
    // The refused takes left the wide limit at 1 of 10: nine more fit.
    for (let index = 0; index < 9; index += 1)
      expect(await counters.take([wide], T0)).toEqual({ allowed: true });
    expect(await counters.take([wide], T0)).toMatchObject({ allowed: false, subject: wide.subject });
  });

  test('allows exactly max of many concurrent takes over overlapping subjects', async ({ counters }) => {
    const user = { subject: subject('concurrent-user'), max: 5, windowMs: MINUTE };
    const global = { subject: subject('concurrent-global'), max: 1000, windowMs: MINUTE };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        counters.take(index % 2 === 0 ? [user, global] : [global, user], T0),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(5);
    // The global budget counted only the five that were allowed.
    const budget = { ...global, max: 6 };
    expect(await counters.take([budget], T0)).toEqual({ allowed: true });
    expect(await counters.take([budget], T0)).toMatchObject({ allowed: false });
  });

  test('are purged once their window has ended, not before', async ({ counters, testStore }) => {
    const old = { subject: subject('old'), max: 1, windowMs: MINUTE };
    await counters.take([old], T0);
    const { retention } = testStore.store;
    const at = (now: number) => cutoffsAt(now);
    expect(await retention.removeBatch('rateCounters', at(T0 + MINUTE - 1), 100)).toBe(0);
    expect(await retention.removeBatch('rateCounters', at(T0 + MINUTE), 100)).toBeGreaterThanOrEqual(1);
    expect(await counters.take([old], T0 + MINUTE)).toEqual({ allowed: true });
  });
});
