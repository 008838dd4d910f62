import { describe, expect, it } from 'vitest';
import { pauseAfterBatch, pauseFor, PURGE_LEASE, PurgeSchedule, purgeStore } from './retention.js';
import {
  BATCH_MS,
  elapsed,
  NOW,
  purgeRecording,
  purging,
  rulesWith,
  withSlowedCodes,
} from '../../testing/retention-domain.js';

withSlowedCodes();

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
    const outcome = await purgeStore(purging.testStore.store, rulesWith(50), {
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
    expect(await purging.testStore.store.leases.find(PURGE_LEASE)).toBeUndefined();
    const [audited] = await purging.testStore.store.audit.list({ event: 'store.purged', limit: 1 });
    expect(audited?.details).toEqual({ removed: { codes: 20 } });
  });
});

describe('a purge told to stop during its pause', () => {
  it('stops at once instead of waiting the pause out', async () => {
    // The first batch keeps the purge busy 100 ms: at 1% it would then wait over 9.9 s, past this
    // test's time limit of 3 s. The signal comes once the product's pause has begun.
    const removeBatch = purging.testStore.store.retention.removeBatch.bind(purging.testStore.store.retention);
    const stopping = new AbortController();
    let batches = 0;
    purging.testStore.store.retention.removeBatch = async (...args) => {
      batches += 1;
      if (batches === 1) purging.clock += 100;
      return removeBatch(...args);
    };
    const pauses: number[] = [];
    const outcome = await purgeStore(purging.testStore.store, rulesWith(1), {
      now: () => NOW,
      elapsed,
      holder: 'test',
      actor: 'test',
      signal: stopping.signal,
      pause: (ms, signal) => {
        pauses.push(ms);
        const pausing = pauseFor(ms, signal);
        stopping.abort();
        return pausing;
      },
    });
    expect(outcome).toEqual({ ran: true, removed: { codes: 10 }, stopped: true });
    expect(batches).toBe(1);
    expect(pauses).toEqual([pauseAfterBatch(100 + BATCH_MS, 1)]);
  }, 3000);

  it('counts as finished when the signal comes with its last batch', async () => {
    const stopping = new AbortController();
    const removeBatch = purging.testStore.store.retention.removeBatch.bind(purging.testStore.store.retention);
    purging.testStore.store.retention.removeBatch = async (...args) => {
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
