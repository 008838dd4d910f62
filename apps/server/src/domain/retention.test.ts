import { usernameOrThrow } from '@dea/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import { openTestStore, type TestStore } from '../testing/stores.js';
import {
  pauseAfterBatch,
  PURGE_LEASE,
  type PurgeOutcome,
  PurgeSchedule,
  purgeStore,
  type RetentionRules,
} from './retention.js';

const NOW = Date.UTC(2026, 10, 25, 9, 0, 0);
/** How long each batch of the slowed store below keeps the purge busy, at least. */
const BATCH_MS = 8;

function rulesWith(busyPercent: number, batchSize = 10): RetentionRules {
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

let testStore: TestStore;

beforeEach(async () => {
  testStore = await openTestStore('sqlite');
  const { store } = testStore;
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
    expect(await store.codes.issue(code, 100, { event: 'code.issued', userId })).toEqual({ issued: true });
  }
  // Each batch keeps the purge busy BATCH_MS by its clock, as a batch of a large purge would.
  clock = 0;
  const removeBatch = store.retention.removeBatch.bind(store.retention);
  store.retention.removeBatch = async (...args) => {
    clock += BATCH_MS;
    return removeBatch(...args);
  };
});

/** The purge's monotonic clock in these tests: only a batch moves it. */
let clock = 0;
const elapsed = (): number => clock;

afterEach(() => testStore.dispose());

/** A purge of the codes that records the pauses it asks for, instead of waiting. */
function purgeRecording(busyPercent: number, pauses: number[], signal?: AbortSignal): Promise<PurgeOutcome> {
  return purgeStore(testStore.store, rulesWith(busyPercent), {
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

describe('the pace of the retention purge', () => {
  it('waits (100 - p) / p times as long as a batch kept it busy', () => {
    expect(pauseAfterBatch(10, 20)).toBe(40);
    expect(pauseAfterBatch(10, 50)).toBe(10);
    expect(pauseAfterBatch(10, 100)).toBe(0);
    expect(pauseAfterBatch(3, 1)).toBe(297);
  });

  it('pauses after each full batch so as to be busy at most DEA_PURGE_BUSY_PERCENT of the time', async () => {
    const pauses: number[] = [];
    const outcome = await purgeRecording(25, pauses);
    expect(outcome).toEqual({ ran: true, removed: { codes: 45 }, stopped: false });
    // Four full batches of 10, then one of 5 that ends the kind: a pause after each full one.
    expect(pauses).toEqual([3 * BATCH_MS, 3 * BATCH_MS, 3 * BATCH_MS, 3 * BATCH_MS]);
  });

  it('does not wait at 100 percent', async () => {
    const pauses: number[] = [];
    await purgeRecording(100, pauses);
    expect(pauses).toEqual([0, 0, 0, 0]);
  });

  it('stops between two batches when told to, releases its lease and audits what went', async () => {
    const stopping = new AbortController();
    const pauses: number[] = [];
    const outcome = await purgeStore(testStore.store, rulesWith(50), {
      now: () => NOW,
      elapsed,
      holder: 'test',
      actor: 'test',
      signal: stopping.signal,
      pause: (ms) => {
        pauses.push(ms);
        if (pauses.length === 2) stopping.abort();
        return Promise.resolve();
      },
    });
    expect(outcome).toEqual({ ran: true, removed: { codes: 20 }, stopped: true });
    expect(await testStore.store.leases.find(PURGE_LEASE)).toBeUndefined();
    const [audited] = await testStore.store.audit.list({ event: 'store.purged', limit: 1 });
    expect(audited?.details).toEqual({ removed: { codes: 20 } });
  });
});

describe('a purge told to stop during its pause', () => {
  it('stops at once instead of waiting the pause out', async () => {
    // The first batch keeps the purge busy 100 ms: at 1% it would then wait 9.9 s, past this
    // test's time limit of 3 s.
    const removeBatch = testStore.store.retention.removeBatch.bind(testStore.store.retention);
    const stopping = new AbortController();
    let batches = 0;
    testStore.store.retention.removeBatch = async (...args) => {
      batches += 1;
      if (batches === 1) clock += 100;
      const removed = await removeBatch(...args);
      setTimeout(() => stopping.abort(), 20);
      return removed;
    };
    const outcome = await purgeStore(testStore.store, rulesWith(1), {
      now: () => NOW,
      elapsed,
      holder: 'test',
      actor: 'test',
      signal: stopping.signal,
    });
    expect(outcome).toEqual({ ran: true, removed: { codes: 10 }, stopped: true });
    expect(batches).toBe(1);
  }, 3000);

  it('counts as finished when the signal comes with its last batch', async () => {
    const stopping = new AbortController();
    const removeBatch = testStore.store.retention.removeBatch.bind(testStore.store.retention);
    testStore.store.retention.removeBatch = async (...args) => {
      const removed = await removeBatch(...args);
      // The last batch of the codes: fewer than the batch size.
      if (removed < 10) stopping.abort();
      return removed;
    };
    const outcome = await purgeRecording(100, [], stopping.signal);
    expect(outcome).toEqual({ ran: true, removed: { codes: 45 }, stopped: false });
  });
});

describe('the purges of an instance', () => {
  it('never runs two at once, and stops the one under way at shutdown', async () => {
    let release: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    const signals: AbortSignal[] = [];
    const schedule = new PurgeSchedule(async (signal) => {
      signals.push(signal);
      await holding;
      return { ran: true, removed: {}, stopped: signal.aborted };
    });
    const first = schedule.start();
    expect(first).toBeDefined();
    expect(schedule.start()).toBeUndefined();
    let stopped = false;
    const stop = schedule.stop().then(() => {
      stopped = true;
    });
    expect(signals[0]?.aborted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stop;
    expect(await first).toEqual({ ran: true, removed: {}, stopped: true });
    expect(schedule.start()).toBeUndefined();
    expect(signals).toHaveLength(1);
  });

  it('starts the next one once the last has finished', async () => {
    let runs = 0;
    const schedule = new PurgeSchedule(() => {
      runs += 1;
      return Promise.resolve({ ran: true, removed: {}, stopped: false });
    });
    await schedule.start();
    await schedule.start();
    expect(runs).toBe(2);
  });
});
