import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { cutoffsAt } from '../../testing/purge-cutoffs.js';
import { storeCase, T0 } from './store-fixture.js';

/** Retention's purges and its lease. */
export function retentionSuite(): void {
  describe.concurrent('retention', () => {
    storeCase(
      'removes audit entries and outbox messages older than their cutoff, in batches',
      async ({ store, expect }) => {
        for (let index = 0; index < 25; index += 1) {
          await store.audit.append({ event: 'system.start', details: { index } }, T0 + index);
          await store.outbox.add({
            id: newId(),
            createdAt: T0 + index,
            channelType: 'email',
            userId: null,
            idempotencyKey: `key-${index}`,
            sealed: 'sealed',
          });
        }
        // Kept for ever while the cutoff is null.
        expect(await store.retention.count('audit', cutoffsAt(T0 + 1_000_000))).toBe(0);
        expect(await store.retention.removeBatch('outbox', cutoffsAt(T0 + 1_000_000), 10)).toBe(0);
        const cutoffs = cutoffsAt(T0 + 100, { auditBefore: T0 + 20, outboxBefore: T0 + 15 });
        expect(await store.retention.count('audit', cutoffs)).toBe(20);
        expect(await store.retention.count('outbox', cutoffs)).toBe(15);
        expect(await store.retention.removeBatch('audit', cutoffs, 8)).toBe(8);
        expect(await store.retention.removeBatch('audit', cutoffs, 8)).toBe(8);
        expect(await store.retention.removeBatch('audit', cutoffs, 8)).toBe(4);
        expect(await store.retention.removeBatch('outbox', cutoffs, 100)).toBe(15);
        const kept = await store.audit.list({ limit: 100 });
        expect(kept.map((entry) => entry.at).sort()).toEqual(
          Array.from({ length: 5 }, (_, index) => T0 + 20 + index),
        );
        expect(await store.outbox.list(100)).toHaveLength(10);
      },
    );

    storeCase(
      'removes forgotten sign-in failures and ended counters, never a lock that holds',
      async ({ store, expect }) => {
        await store.signinFailures.reserve(
          [{ subject: 'old', max: 5, windowMs: 60_000, lockMsAt: () => 60_000 }],
          T0,
        );
        await store.signinFailures.reserve(
          [{ subject: 'recent', max: 5, windowMs: 60_000, lockMsAt: () => 60_000 }],
          T0 + 50,
        );
        await store.rateCounters.take([{ subject: 'send:user:a', max: 3, windowMs: 10 }], T0);
        await store.rateCounters.take([{ subject: 'send:user:b', max: 3, windowMs: 1000 }], T0);
        const cutoffs = cutoffsAt(T0 + 100, { signinFailuresBefore: T0 + 10 });
        expect(await store.retention.removeBatch('signinFailures', cutoffs, 100)).toBe(1);
        expect(await store.signinFailures.find('old')).toBeUndefined();
        expect(await store.signinFailures.find('recent')).toBeDefined();
        expect(await store.retention.removeBatch('rateCounters', cutoffs, 100)).toBe(1);
      },
    );

    storeCase(
      'gives the purge lease to exactly one of many holders at once, across two instances',
      async ({ store, expect, openSecondInstance }) => {
        const second = await openSecondInstance();
        try {
          const takes = await Promise.all(
            Array.from({ length: 12 }, (_, index) =>
              (index % 2 === 0 ? store : second).leases.take('purge', `holder-${index}`, T0, T0 + 1000),
            ),
          );
          expect(takes.filter(Boolean)).toHaveLength(1);
          const holder = `holder-${takes.indexOf(true)}`;
          expect(await second.leases.find('purge')).toEqual({ holder, until: T0 + 1000 });
          // Its holder extends it; nobody else gets it until it runs out or is given back.
          expect(await store.leases.take('purge', holder, T0 + 500, T0 + 2000)).toBe(true);
          expect(await second.leases.take('purge', 'late', T0 + 1500, T0 + 3000)).toBe(false);
          expect(await second.leases.take('purge', 'late', T0 + 2000, T0 + 3000)).toBe(true);
          await store.leases.release('purge', holder);
          expect(await store.leases.find('purge')).toEqual({ holder: 'late', until: T0 + 3000 });
          await second.leases.release('purge', 'late');
          expect(await store.leases.find('purge')).toBeUndefined();
        } finally {
          await second.close();
        }
      },
    );
  });
}
