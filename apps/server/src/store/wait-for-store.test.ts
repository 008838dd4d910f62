import { describe, expect, it } from 'vitest';
import { StoreError } from './store-error.js';
import { isPassingStoreFailure, openWhenReachable } from './wait-for-store.js';

const failure = (code: string) =>
  new StoreError(`failed (${code})`, { cause: Object.assign(new Error(code), { code }) });

describe('waiting for a store at start', () => {
  it('tells failures that pass (refused, starting up, failing over, a name not resolved yet) from those that need the operator', () => {
    for (const code of ['ECONNREFUSED', '57P03', '57P01', '53300', 'ETIMEDOUT', 'ENOTFOUND'])
      expect(isPassingStoreFailure(failure(code)), code).toBe(true);
    for (const code of ['28P01', '3D000', '42501'])
      expect(isPassingStoreFailure(failure(code)), code).toBe(false);
    expect(isPassingStoreFailure(new StoreError('the store was migrated by a newer version'))).toBe(false);
  });

  it('tries again with doubling waits, logging each cause, until the store answers', async () => {
    const waits: number[] = [];
    const logged: string[] = [];
    let attempts = 0;
    const opened = await openWhenReachable(
      async () => {
        attempts += 1;
        if (attempts < 4) throw failure('ECONNREFUSED');
        return 'store';
      },
      60_000,
      { warn: (_details: object, message: string) => void logged.push(message) } as never,
      async (ms) => void waits.push(ms),
    );
    expect(opened).toBe('store');
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(logged[0]).toMatch(/cannot be used yet; trying again in 1 s .*DEA_DB_START_WAIT_SECONDS/);
  });

  it('gives up with the last cause once the wait is over, and never retries what needs the operator', async () => {
    let attempts = 0;
    await expect(
      openWhenReachable(
        async () => {
          attempts += 1;
          throw failure('ECONNREFUSED');
        },
        0,
        { warn: () => undefined } as never,
      ),
    ).rejects.toThrow('ECONNREFUSED');
    expect(attempts).toBe(1);
    attempts = 0;
    await expect(
      openWhenReachable(
        async () => {
          attempts += 1;
          throw failure('28P01');
        },
        60_000,
        { warn: () => undefined } as never,
        async () => undefined,
      ),
    ).rejects.toThrow('28P01');
    expect(attempts).toBe(1);
  });
});
