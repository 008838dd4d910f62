import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveKeys } from '../../crypto/secret-keys.js';
import { auditSealer, auditStampKeyOf, SEAL_BATCH } from '../../domain/audit/audit-trail.js';
import { recordSqlitePrepares, sqlitePlanOf } from '../../testing/recorded-sql.js';
import { openStore } from '../open-store.js';
import type { Store } from '../store.js';

/**
 * Sealing the audit trail on the embedded store was quadratic in the entries waiting: SQLite took
 * the unique index on `seq` for `seq is null` (every unsealed entry) and, for each of them,
 * scanned the batch's values. The seal's UPDATE must lead with the batch's values and find each
 * entry by its id, never by that index (`store/sql/audit-trail.ts`).
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
    const sealer = auditSealer(KEYS);
    const sealed = await store.auditTrail.seal(sealer, SEAL_BATCH, 5_000).finally(prepared.stop);
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
});
