import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from the first delay up to the largest, with jitter below each value', () => {
    const policy = { firstMs: 500, maxMs: 30_000 };
    expect([1, 2, 3, 7, 8, 20].map((attempt) => backoffDelay(policy, attempt))).toEqual([
      500, 1000, 2000, 30_000, 30_000, 30_000,
    ]);
    const jittered = { firstMs: 1000, maxMs: 60_000, jitter: 0.5 };
    expect(backoffDelay(jittered, 2, () => 0)).toBe(1000);
    expect(backoffDelay(jittered, 2, () => 1)).toBe(2000);
    expect(backoffDelay({ ...jittered, factor: 3 }, 3, () => 1)).toBe(9000);
  });

  it('counts failures and starts again after a success', () => {
    const backoff = new Backoff({ firstMs: 10, maxMs: 40 });
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([10, 20, 40, 40]);
    expect(backoff.failures).toBe(4);
    backoff.reset();
    expect(backoff.next()).toBe(10);
  });
});
