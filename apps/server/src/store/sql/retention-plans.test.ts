import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutoffsAt } from '../../testing/purge-cutoffs.js';
import { recordSqlitePrepares, sqlitePlanOf } from '../../testing/recorded-sql.js';
import { openStore } from '../open-store.js';
import type { Store } from '../store.js';

/**
 * The purge runs beside the load, on the thread that answers requests on the embedded store. Each
 * of its batches must find its rows by an index: a scan of the codes (hundreds of thousands of live
 * ones under load) stalls every request for tens of milliseconds, and the last batch of a purge
 * (the one that finds nothing more) scanned them all.
 */
let dataDir: string;
let store: Store;
let prepared: ReturnType<typeof recordSqlitePrepares>;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dea-purge-plans-'));
  store = await openStore({ dataDir });
  prepared = recordSqlitePrepares();
});

afterEach(async () => {
  prepared.stop();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the purge on the embedded store', () => {
  it.each([
    'codes',
    'audit',
    'outbox',
    'verifyAnswers',
    'channelProofs',
    'channelUndoLinks',
    'registrationChallenges',
    'registrationSessions',
    'registrationLinks',
    'registrationOidcFlows',
    'passwordLinks',
    'consoleEnrolmentLinks',
    'rememberedDevices',
  ] as const)('finds the %s it removes by an index', async (kind) => {
    await store.retention.removeBatch(
      kind,
      cutoffsAt(1_000_000, {
        auditBefore: 1,
        outboxBefore: 1,
        linksBefore: 1,
        registrationOidcFlowsBefore: 1,
      }),
      100,
    );
    const deletes = prepared.sources.filter((source) => source.startsWith('delete'));
    expect(deletes.length).toBeGreaterThan(0);
    for (const source of deletes) {
      const plan = sqlitePlanOf(dataDir, source);
      expect(plan.some((step) => step.includes(' USING '))).toBe(true);
      // "SCAN t" alone reads the whole table; "SCAN t USING INDEX i" reads a partial index only.
      expect(plan.filter((step) => /^SCAN \w+$/.test(step))).toEqual([]);
    }
  });
});
