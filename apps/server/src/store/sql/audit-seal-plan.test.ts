import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveKeys } from '../../crypto/secret-keys.js';
import { auditStampKeyOf, SEAL_BATCH, sealAuditTrail } from '../../domain/audit/audit-trail.js';
import { recordPostgresQueries, recordSqlitePrepares, sqlitePlanOf } from '../../testing/recorded-sql.js';
import { openTestStore, TEST_STORE_KEYS } from '../../testing/stores.js';
import { openStore } from '../open-store.js';
import type { Store } from '../store.js';

/**
 * Sealing the audit trail on the embedded store was quadratic in the entries waiting: SQLite took
 * the unique index on `seq` for `seq is null` (every unsealed entry) and, for each of them,
 * scanned the batch's values. The seal's UPDATE must lead with the batch's values and find each
 * entry by its id, never by that index, and its read must take the unsealed entries in the partial
 * index's order, never sort them all (`store/sql/audit-trail.ts`).
 */
const KEYS = deriveKeys(randomBytes(32));
let dataDir: string;
let store: Store;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dea-seal-plan-'));
  store = await openStore({ dataDir, auditStampKey: auditStampKeyOf(KEYS) });
});

afterEach(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('sealing the audit trail on the embedded store', () => {
  it('places a batch by the entries’ ids, not by the unique index on seq for the unsealed ones', async () => {
    const count = SEAL_BATCH + 20;
    for (let index = 0; index < count; index += 1)
      await store.audit.append({ event: 'user.created', actor: 'cli', details: { index } }, 1_000 + index);
    const prepared = recordSqlitePrepares();
    const sealed = await sealAuditTrail(store, KEYS, 5_000).finally(prepared.stop);
    expect(sealed).toBe(count);
    const updates = prepared.sources.filter((source) => /update audit_log set seq/.test(source));
    // One text for a full batch and one for the rest.
    expect(updates).toHaveLength(2);
    for (const source of updates) {
      const plan = sqlitePlanOf(dataDir, source);
      // "audit_log_seq (seq=?)" is the index searched for "seq is null", once per value of the batch.
      expect(plan.filter((step) => /audit_log_seq \(seq/.test(step))).toEqual([]);
      const values = plan.indexOf('SCAN v');
      const byId = plan.findIndex((step) => /^SEARCH audit_log USING .*\(id=\?\)$/.test(step));
      expect(values).toBeGreaterThanOrEqual(0);
      expect(byId).toBeGreaterThan(values);
    }
    expect(await store.auditTrail.unsealedCount()).toBe(0);
  });

  it('reads the oldest unsealed entries in the partial index’s order, never sorting all that wait', async () => {
    for (let index = 0; index < SEAL_BATCH + 20; index += 1)
      await store.audit.append({ event: 'user.created', actor: 'cli', details: { index } }, 1_000 + index);
    const prepared = recordSqlitePrepares();
    await sealAuditTrail(store, KEYS, 5_000).finally(prepared.stop);
    const reads = prepared.sources.filter((source) => /^select "id", "at", "event"/.test(source));
    expect(reads).toHaveLength(1);
    const plan = sqlitePlanOf(dataDir, reads[0] as string);
    expect(plan).toContain('SCAN audit_log USING INDEX audit_log_unsealed');
    expect(plan.filter((step) => /TEMP B-TREE FOR ORDER BY|audit_log_seq \(seq=/.test(step))).toEqual([]);
  });
});

describe('sealing the audit trail on PostgreSQL', () => {
  it('renews the statistics of the audit log when a full batch waits, at most once a minute', async () => {
    const own = await openTestStore('postgres');
    try {
      const append = async (count: number, from: number) => {
        for (let index = 0; index < count; index += 1)
          await own.store.audit.append(
            { event: 'user.created', actor: 'cli', details: { index } },
            from + index,
          );
      };
      const analyses = async (run: () => Promise<unknown>) => {
        const recorded = recordPostgresQueries();
        await run().finally(recorded.stop);
        return recorded.queries.filter(({ text }) => /^analyze audit_log$/i.test(text.trim())).length;
      };
      await append(SEAL_BATCH - 1, 1_000);
      expect(await analyses(() => sealAuditTrail(own.store, TEST_STORE_KEYS, 5_000))).toBe(0);
      await append(SEAL_BATCH + 20, 10_000);
      expect(await analyses(() => sealAuditTrail(own.store, TEST_STORE_KEYS, 20_000))).toBe(1);
      await append(SEAL_BATCH + 20, 30_000);
      // Within the minute: autovacuum's statistics, or these, serve.
      expect(await analyses(() => sealAuditTrail(own.store, TEST_STORE_KEYS, 70_000))).toBe(0);
      await append(SEAL_BATCH + 20, 90_000);
      expect(await analyses(() => sealAuditTrail(own.store, TEST_STORE_KEYS, 90_000))).toBe(1);
      expect(await own.store.auditTrail.unsealedCount()).toBe(0);
    } finally {
      await own.dispose();
    }
  });
});
