import { usernameOrThrow } from '@dea/contract';
import { afterEach, beforeEach, expect } from 'vitest';
import { newId } from '../crypto/ids.js';
import { openTestStore, type TestStore } from './stores.js';
import { type PurgeOutcome, purgeStore, type RetentionRules } from '../domain/retention/retention.js';

export const NOW = Date.UTC(2026, 10, 25, 9, 0, 0);
/** How long each batch of the slowed store below keeps the purge busy, at least. */
export const BATCH_MS = 8;

export function rulesWith(busyPercent: number, batchSize = 10): RetentionRules {
  return {
    retention: {
      auditMs: null,
      auditUnexported: false,
      outboxMs: null,
      sessionGraceMs: 0,
      intervalMs: 0,
      batchSize,
      busyPercent,
    },
    auditDestinations: [],
    sessionIdleMs: 60_000,
    sessionAbsoluteMs: 3_600_000,
    consoleIdleMs: 60_000,
    signinWindowMs: 60_000,
  };
}

/**
 * The store of the pace's tests and the purge's monotonic clock in them, which only a batch
 * moves: set anew before each test by `withSlowedCodes`.
 */
export const purging = { testStore: undefined as unknown as TestStore, clock: 0 };
export const elapsed = (): number => purging.clock;

/**
 * Before each test of the calling file: an embedded store with 45 expired codes, each batch of
 * whose purge keeps it busy BATCH_MS by its clock, as a batch of a large purge would.
 */
export function withSlowedCodes(): void {
  beforeEach(async () => {
    purging.testStore = await openTestStore('sqlite');
    const { store } = purging.testStore;
    const userId = newId();
    await store.users.create({
      id: userId,
      username: usernameOrThrow('pat'),
      passwordHash: 'x',
      fullName: 'Pat',
      locale: 'en',
      createdAt: NOW,
    });
    for (let index = 0; index < 45; index += 1) {
      const code = {
        id: newId(),
        userId,
        codeHash: `h-${index}`,
        createdAt: NOW - 120_000,
        expiresAt: NOW - 60_000,
        uses: 1,
        channelType: null,
      };
      expect(await store.codes.issue(code, 100, { event: 'code.issued', userId })).toEqual({
        issued: true,
        channels: [],
      });
    }
    purging.clock = 0;
    const removeBatch = store.retention.removeBatch.bind(store.retention);
    store.retention.removeBatch = async (...args) => {
      purging.clock += BATCH_MS;
      return removeBatch(...args);
    };
  });

  afterEach(() => purging.testStore.dispose());
}

/** A purge of the codes that records the pauses it asks for, instead of waiting. */
export function purgeRecording(
  busyPercent: number,
  pauses: number[],
  signal?: AbortSignal,
): Promise<PurgeOutcome> {
  return purgeStore(purging.testStore.store, rulesWith(busyPercent), {
    now: () => NOW,
    holder: 'test',
    actor: 'test',
    kinds: ['codes'],
    elapsed,
    ...(signal !== undefined && { signal }),
    pause: (ms) => {
      pauses.push(ms);
      return Promise.resolve();
    },
  });
}
