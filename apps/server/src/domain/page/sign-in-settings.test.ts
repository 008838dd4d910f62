import { describe, expect, it } from 'vitest';
import { signInConfigOf } from './sign-in-settings.js';

describe('the sign-in settings', () => {
  it('turn minutes and seconds into the milliseconds the limits count in', () => {
    expect(
      signInConfigOf({
        DEA_SIGNIN_MAX_FAILURES: 5,
        DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: 20,
        DEA_SIGNIN_WINDOW_MINUTES: 15,
        DEA_SIGNIN_LOCK_MINUTES: 10,
        DEA_SIGNIN_SLOWDOWN_MS: 500,
        DEA_SIGNIN_SLOWDOWN_MAX_SECONDS: 60,
        DEA_PASSWORD_HASH_COST: 17,
        DEA_PASSWORD_HASH_CONCURRENCY: 2,
        DEA_PASSWORD_HASH_QUEUE: 16,
        DEA_SIGNIN_MAX_IN_FLIGHT: 24,
        DEA_SIGNIN_DB_CONNECTIONS: 3,
      }),
    ).toEqual({
      signin: {
        userLockAfter: 5,
        addressLockAfter: 20,
        windowMs: 900_000,
        lockMs: 600_000,
        slowdownMs: 500,
        slowdownMaxMs: 60_000,
      },
      passwordHashCost: 17,
      passwordHashing: { concurrency: 2, queue: 16 },
      signInBulkheads: { maxInFlight: 24, storeConnections: 3 },
    });
  });
});
