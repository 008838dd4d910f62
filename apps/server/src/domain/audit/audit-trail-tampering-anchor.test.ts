import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { AuditExport } from '../../audit-export/audit-export.js';
import { Metrics } from '../../observability/metrics.js';
import { checkSecretFingerprint } from '../../store/secret-fingerprint.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { execRaw } from '../../testing/store-dump.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { purgeStore } from '../retention/retention.js';
import {
  type AuditAnchor,
  beginAuditTrail,
  readAnchor,
  sealAuditTrail,
  verifyAuditTrail,
} from './audit-trail.js';
import {
  appendSome,
  DAY,
  headOf,
  KEYS,
  NOW,
  putHeadBack,
  seqs,
  usedStore,
} from '../../testing/audit-trail-tampering.js';

/** The audit file an export round writes over the store, and the furthest signed head in it. */
async function exportedAnchor(store: Store, file: string, at: number): Promise<AuditAnchor> {
  const exporter = new AuditExport(
    { syslog: undefined, https: undefined, file, buffer: 100, timeoutMs: 2000 },
    store,
    KEYS,
    new Metrics(),
    pino({ level: 'silent' }),
    { holder: 'anchor', now: () => at, pollMs: 600_000 },
  );
  await exporter.round();
  await exporter.close(5000);
  const { anchor } = readAnchor(readFileSync(file, 'utf8'), KEYS);
  if (anchor === undefined) throw new Error('the audit file holds no signed head');
  return anchor;
}

/** The audit trail checked against the signed head of its exported copy. */
describe.each(STORE_KINDS)('the audit trail against its exported copy on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'a rolled-back trail (an earlier head put back after newer entries were deleted) is told against the exported copy, also once the places are written anew',
    async ({ testStore }) => {
      const { store } = testStore;
      const folder = mkdtempSync(join(tmpdir(), 'dea-anchor-'));
      try {
        await usedStore(store, 3);
        const earlier = await headOf(store);
        if (earlier === undefined) throw new Error('no head');
        await appendSome(store, 3, NOW + 10);
        await sealAuditTrail(store, KEYS, NOW + 20);
        const anchor = await exportedAnchor(store, join(folder, 'audit.jsonl'), NOW + 30);
        expect(anchor).toMatchObject({ seq: 6, key: KEYS.fingerprint });
        expect(await verifyAuditTrail(store, KEYS, undefined, anchor)).toMatchObject({
          checked: 6,
          broken: undefined,
        });
        await execRaw(testStore, `delete from audit_log where seq > 3`);
        await putHeadBack(testStore, earlier);
        // The store alone cannot tell a trail rolled back from one that never went further.
        expect((await verifyAuditTrail(store, KEYS)).broken).toBeUndefined();
        expect((await verifyAuditTrail(store, KEYS, undefined, anchor)).broken).toMatchObject({
          seq: 4,
          reason: expect.stringMatching(
            /ends at #3, but the exported copy's signed head .* reached #6/,
          ) as unknown,
        });
        // Written anew over the roll-back: the places are there again, the entries are not the same.
        await appendSome(store, 3, NOW + 40);
        await sealAuditTrail(store, KEYS, NOW + 50);
        expect((await verifyAuditTrail(store, KEYS)).broken).toBeUndefined();
        expect((await verifyAuditTrail(store, KEYS, undefined, anchor)).broken).toMatchObject({
          seq: 6,
          reason: expect.stringMatching(/rolled back and written anew/) as unknown,
        });
        // From a later time on, the anchor's place is still checked.
        expect((await verifyAuditTrail(store, KEYS, NOW + 41, anchor)).broken?.reason).toMatch(
          /rolled back and written anew/,
        );
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  storeTest(
    'the purge is no cut: a trail purged to its end verifies, with and without the exported copy',
    async ({ testStore }) => {
      const { store } = testStore;
      const folder = mkdtempSync(join(tmpdir(), 'dea-anchor-'));
      try {
        await beginAuditTrail(store, KEYS, NOW);
        await checkSecretFingerprint(store, KEYS, true, NOW);
        await appendSome(store, 4, NOW - 400 * DAY);
        await sealAuditTrail(store, KEYS, NOW);
        const anchor = await exportedAnchor(store, join(folder, 'audit.jsonl'), NOW);
        await purgeStore(
          store,
          {
            retention: {
              auditMs: 365 * DAY,
              auditUnexported: false,
              outboxMs: null,
              sessionGraceMs: 0,
              intervalMs: 0,
              batchSize: 100,
              busyPercent: 100,
            },
            sessionIdleMs: 60_000,
            sessionAbsoluteMs: 3_600_000,
            consoleIdleMs: 60_000,
            signinWindowMs: 60_000,
            auditDestinations: ['file'],
          },
          { now: () => NOW, holder: 'test', actor: 'cli', kinds: ['audit'], keys: KEYS },
        );
        await sealAuditTrail(store, KEYS, NOW);
        expect(await seqs(store)).toEqual([5]);
        expect((await verifyAuditTrail(store, KEYS)).broken).toBeUndefined();
        expect((await verifyAuditTrail(store, KEYS, undefined, anchor)).broken).toBeUndefined();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );
});
