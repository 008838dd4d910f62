import pino from 'pino';
import { describe, expect, vi } from 'vitest';
import { Metrics } from '../observability/metrics.js';
import { storeTest } from '../testing/fixtures.js';
import { STORE_KINDS, TEST_STORE_KEYS } from '../testing/stores.js';
import { AuditExport } from './audit-export.js';

// What a test store writes is stamped under these keys' secret.
const KEYS = TEST_STORE_KEYS;

describe.each(STORE_KINDS)('the audit trail’s seal on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'gathers the entries written one after another into one round, where each entry had a round of its own',
    async ({ testStore }) => {
      const { store } = testStore;
      const exporter = new AuditExport(undefined, store, KEYS, new Metrics(), pino({ level: 'silent' }), {
        holder: 'gathering',
        now: Date.now,
        // No poll round falls into the writes: only the writes ask for rounds.
        pollMs: 600_000,
        gatherMs: 20,
      });
      const seals = vi.spyOn(store.auditTrail, 'seal');
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        // Ten entries, each told as a request tells it, 1 ms apart (ten requests one at a time).
        for (let index = 0; index < 10; index += 1) {
          await store.audit.append(
            { event: 'code.issued', userId: null, actor: 'test', details: { index } },
            Date.now(),
          );
          exporter.notify();
          await vi.advanceTimersByTimeAsync(1);
        }
        await vi.advanceTimersByTimeAsync(50);
      } finally {
        vi.useRealTimers();
      }
      await expect.poll(() => store.auditTrail.unsealedCount(), { timeout: 30_000 }).toBe(0);
      // One round (its seal may ask the store twice: the batch, then nothing left).
      const rounds = seals.mock.calls.length;
      expect(rounds).toBeGreaterThan(0);
      expect(rounds).toBeLessThanOrEqual(2);
      await exporter.close(1000);
    },
  );
});
