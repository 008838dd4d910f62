import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { AuditExport } from '../../audit-export/audit-export.js';
import { entryStampOf } from '../../crypto/audit-chain.js';
import { deriveKeys } from '../../crypto/secret-keys.js';
import { Metrics } from '../../observability/metrics.js';
import { checkSecretFingerprint } from '../../store/secret-fingerprint.js';
import type { AuditChainMark, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { execRaw } from '../../testing/store-dump.js';
import { STORE_KINDS, TEST_STORE_KEYS, type TestStore } from '../../testing/stores.js';
import {
  type AuditAnchor,
  beginAuditTrail,
  readAnchor,
  sealAuditTrail,
  verifyAuditTrail,
} from './audit-trail.js';
import { purgeStore } from '../retention/retention.js';

/**
 * The end of the audit trail and the entries the product did not write (ADR 0032): what someone
 * who can write the database, but holds no secret, does to the trail is told by `verifyAuditTrail`,
 * and the next seal neither hides it nor chains what he wrote.
 */
const NOW = Date.UTC(2026, 11, 1, 9, 0, 0);
const DAY = 86_400_000;
// What a test store writes is stamped under these keys' secret.
const KEYS = TEST_STORE_KEYS;

async function appendSome(store: Store, count: number, at = NOW): Promise<void> {
  for (let index = 0; index < count; index += 1)
    await store.audit.append({ event: 'user.created', actor: 'cli', details: { index } }, at + index);
}

/** A store a server has run on: its trail begun, its secret recorded, entries sealed. */
async function usedStore(store: Store, count: number): Promise<void> {
  await beginAuditTrail(store, KEYS, NOW);
  await checkSecretFingerprint(store, KEYS, true, NOW);
  await appendSome(store, count);
  await sealAuditTrail(store, KEYS, NOW);
}

async function seqs(store: Store): Promise<number[]> {
  return (await store.auditTrail.sealedAfter(0, 10_000)).map(({ seq }) => seq);
}

async function headOf(store: Store): Promise<AuditChainMark | undefined> {
  return (await store.auditTrail.marks()).find((mark) => mark.name === 'head');
}

async function putHeadBack(testStore: TestStore, head: AuditChainMark): Promise<void> {
  await execRaw(testStore, `delete from audit_chain where name = 'head'`);
  await execRaw(
    testStore,
    `insert into audit_chain (name, seq, chain, reason, at, chain_key, mac) values ($1, $2, $3, $4, $5, $6, $7)`,
    [head.name, head.seq, head.chain, head.reason, head.at, head.chainKey, head.mac],
  );
}

/** An entry put into the audit log with the database's own tools, an old date, and `stamp`. */
async function forge(testStore: TestStore, id: string, stamp: string | null): Promise<void> {
  await execRaw(
    testStore,
    `insert into audit_log (id, at, event, user_id, actor, client_address, details, stamp) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, NOW - 30 * DAY, 'policy.set', null, 'console:admin', '192.0.2.66', '{"enableECode":true}', stamp],
  );
}

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

describe.each(STORE_KINDS)('the end of the audit trail and its forgeries on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'the last entries deleted with the head: verification names the missing head, and the next seal keeps the cut in the chain',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 6);
      await execRaw(testStore, `delete from audit_log where seq >= 4`);
      await execRaw(testStore, `delete from audit_chain where name = 'head'`);
      expect((await verifyAuditTrail(store, KEYS)).broken).toMatchObject({
        seq: 4,
        reason: expect.stringMatching(/head of the trail is missing/) as unknown,
      });
      // The next writer's seal goes on, but from a link that says where the trail was cut.
      await appendSome(store, 2, NOW + 100);
      expect(await sealAuditTrail(store, KEYS, NOW + 200)).toBe(2);
      expect(await seqs(store)).toEqual([1, 2, 3, 4, 5]);
      const cut = await verifyAuditTrail(store, KEYS);
      expect(cut.broken).toMatchObject({ seq: 4 });
      expect(cut.broken?.reason).toMatch(
        /cut before entry #4.*head of the trail was missing.*went on from #3/,
      );
      // Its record removed too, the chain still tells the cut.
      await execRaw(testStore, `delete from audit_chain where name = 'cut:3'`);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(/cut before entry #4/);
    },
  );

  storeTest(
    'a head set to place 0: verification names the changed head, also after the next seal',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 5);
      await execRaw(testStore, `delete from audit_log where seq >= 4`);
      await execRaw(testStore, `update audit_chain set seq = 0 where name = 'head'`);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(/head of the trail was changed/);
      await appendSome(store, 1, NOW + 100);
      await sealAuditTrail(store, KEYS, NOW + 200);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(
        /cut before entry #4.*head of the trail was changed/,
      );
    },
  );

  storeTest(
    'a head given a key no sealer has, after the last entries were deleted: the next seal keeps the cut in the chain',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 5);
      const [, , third] = await store.auditTrail.sealedAfter(0, 3);
      await execRaw(testStore, `delete from audit_log where seq >= 4`);
      await execRaw(
        testStore,
        `update audit_chain set seq = 3, chain = $1, chain_key = 'someone' where name = 'head'`,
        [third?.chain],
      );
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(
        /signed under a secret that is not configured/,
      );
      await appendSome(store, 1, NOW + 100);
      await sealAuditTrail(store, KEYS, NOW + 200);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(
        /cut before entry #4.*signed under a secret that is neither/,
      );
    },
  );

  storeTest(
    'the last entry given a key no sealer has: no seal vouches for it with a rotation checkpoint',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 3);
      await execRaw(testStore, `update audit_log set chain_key = 'someone' where seq = 3`);
      await appendSome(store, 1, NOW + 100);
      await sealAuditTrail(store, KEYS, NOW + 200);
      expect((await store.auditTrail.marks()).map(({ reason }) => reason)).not.toContain('rotation');
      expect((await verifyAuditTrail(store, KEYS)).broken).toMatchObject({
        seq: 3,
        reason: expect.stringMatching(
          /sealed under a secret that is not configured, and no later checkpoint vouches/,
        ) as unknown,
      });
      // Its key put back, the cut the seal found stays in the chain.
      await execRaw(testStore, `update audit_log set chain_key = $1 where seq = 3`, [KEYS.fingerprint]);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(
        /cut before entry #4.*sealed under a secret that is neither/,
      );
    },
  );

  storeTest(
    'an emptied trail: verification names it, and the next seal keeps the cut in the chain',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 4);
      await execRaw(testStore, `delete from audit_log`);
      await execRaw(testStore, `delete from audit_chain`);
      await execRaw(testStore, `delete from audit_export_positions`);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(/trail was emptied/);
      await appendSome(store, 1, NOW + 100);
      await sealAuditTrail(store, KEYS, NOW + 200);
      expect((await verifyAuditTrail(store, KEYS)).broken).toMatchObject({
        seq: 1,
        reason: expect.stringMatching(/cut before entry #1.*emptied/) as unknown,
      });
    },
  );

  storeTest(
    'a trail emptied on a store no server ran on (only dea) is told by the record of its first seal',
    async ({ testStore }) => {
      const { store } = testStore;
      await appendSome(store, 3);
      await sealAuditTrail(store, KEYS, NOW);
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({ checked: 3, broken: undefined });
      await execRaw(testStore, `delete from audit_log`);
      await execRaw(testStore, `delete from audit_chain`);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(/trail was emptied/);
    },
  );

  storeTest(
    'a new store verifies, before and after its first entries; one never sealed is not taken for an emptied one',
    async ({ testStore }) => {
      const { store } = testStore;
      await beginAuditTrail(store, KEYS, NOW);
      await checkSecretFingerprint(store, KEYS, true, NOW);
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({ checked: 0, broken: undefined });
      await appendSome(store, 2);
      await sealAuditTrail(store, KEYS, NOW);
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({
        checked: 2,
        broken: undefined,
        forgedCount: 0,
      });
    },
  );

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

  storeTest(
    'an entry put into the database with an old date is never sealed, and verification names it whatever its stamp',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 3);
      const [genuine] = await store.auditTrail.sealedAfter(0, 1);
      const other = deriveKeys(Buffer.alloc(32, 77));
      await forge(testStore, 'forged-none', null);
      // A genuine entry's stamp, on other content.
      await forge(testStore, 'forged-copied', genuine?.stamp ?? '');
      // A stamp under another secret, and the mark of what an older version left unsealed.
      await forge(
        testStore,
        'forged-other-secret',
        entryStampOf(other.auditEntry, other.fingerprint, {
          id: 'forged-other-secret',
          at: NOW - 30 * DAY,
          event: 'policy.set',
          userId: null,
          actor: 'console:admin',
          clientAddress: '192.0.2.66',
          details: '{"enableECode":true}',
        }),
      );
      await forge(testStore, 'forged-legacy', 'legacy');
      await forge(testStore, 'forged-garbage', 'x.y');
      const before = await verifyAuditTrail(store, KEYS);
      expect(before.forgedCount).toBe(5);
      await appendSome(store, 1, NOW + 100);
      expect(await sealAuditTrail(store, KEYS, NOW + 200)).toBe(1);
      expect(await seqs(store)).toEqual([1, 2, 3, 4]);
      const after = await verifyAuditTrail(store, KEYS);
      expect(after).toMatchObject({ checked: 4, broken: undefined, forgedCount: 5 });
      expect(after.forged.map(({ id }) => id).sort()).toEqual([
        'forged-copied',
        'forged-garbage',
        'forged-legacy',
        'forged-none',
        'forged-other-secret',
      ]);
      expect(after.forged[0]?.reason).toMatch(/no valid stamp/);
      // Set aside, not lost: the log still shows it, and no later seal takes it.
      expect((await store.audit.list({ event: 'policy.set' })).map(({ id }) => id)).toHaveLength(5);
      expect(await sealAuditTrail(store, KEYS, NOW + 300)).toBe(0);
    },
  );

  storeTest(
    "stamps taken off the sealed entries do not open the way to an older version's mark: the chain covers the stamp",
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 3);
      // As if no stamped entry had been sealed yet, then an entry marked as an older version's.
      await execRaw(testStore, `update audit_log set stamp = null where seq is not null`);
      await forge(testStore, 'forged-after-unstamping', 'legacy');
      await sealAuditTrail(store, KEYS, NOW + 200);
      const verified = await verifyAuditTrail(store, KEYS);
      expect(verified.broken).toMatchObject({ seq: 1, reason: expect.stringMatching(/changed/) });
    },
  );

  storeTest(
    'an entry put beside the trail (a key without a place, a place below the first) is named too',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 2);
      await forge(testStore, 'keyed-without-place', null);
      await execRaw(testStore, `update audit_log set chain_key = 'x' where id = 'keyed-without-place'`);
      await forge(testStore, 'below-the-first', null);
      await execRaw(
        testStore,
        `update audit_log set seq = -5, chain = 'abc', chain_key = $1 where id = 'below-the-first'`,
        [KEYS.fingerprint],
      );
      const verified = await verifyAuditTrail(store, KEYS);
      expect(verified).toMatchObject({ checked: 2, broken: undefined, forgedCount: 2 });
      expect(verified.forged.map(({ id, reason }) => [id, reason])).toEqual([
        ['below-the-first', expect.stringMatching(/outside the trail/)],
        ['keyed-without-place', expect.stringMatching(/outside the trail/)],
      ]);
    },
  );

  storeTest(
    'an entry sealed without a valid stamp (by a sealer that did not check) does not verify',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 3);
      // Its stamp taken off after the seal: the chain value covers the stamp, so the entry no
      // longer matches it.
      await execRaw(testStore, `update audit_log set stamp = null where seq = 2`);
      expect((await verifyAuditTrail(store, KEYS)).broken).toMatchObject({
        seq: 2,
        reason: expect.stringMatching(/changed/) as unknown,
      });
    },
  );

  storeTest(
    'entries stamped under the previous secret are sealed during a rotation; an older version’s unsealed ones only before stamps',
    async ({ testStore }) => {
      const { store } = testStore;
      await beginAuditTrail(store, KEYS, NOW);
      // Left unsealed by a version before stamps (migration 0035 marks them).
      await forge(testStore, 'left-by-older-version', 'legacy');
      await appendSome(store, 2);
      const rotated = { ...deriveKeys(Buffer.alloc(32, 78)), previous: KEYS };
      expect(await sealAuditTrail(store, rotated, NOW)).toBe(3);
      expect(await verifyAuditTrail(store, rotated)).toMatchObject({
        checked: 3,
        broken: undefined,
        forgedCount: 0,
      });
    },
  );

  storeTest(
    'an entry stamped under the store’s secret waits for a sealer that holds it (an instance with another secret alone, during a rotation)',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 2);
      await appendSome(store, 1, NOW + 100);
      // An instance started with another secret alone: it cannot check the stamp, nor refuse it.
      const other = deriveKeys(Buffer.alloc(32, 79));
      expect(await sealAuditTrail(store, other, NOW + 200)).toBe(0);
      expect(await store.auditTrail.refusedCount()).toBe(0);
      expect(await store.auditTrail.unsealedCount()).toBe(1);
      expect((await verifyAuditTrail(store, KEYS)).forgedCount).toBe(0);
      expect(await sealAuditTrail(store, KEYS, NOW + 300)).toBe(1);
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({
        checked: 3,
        broken: undefined,
        forgedCount: 0,
      });
    },
  );

  storeTest(
    'a server warns when its seal sets entries aside and when it finds the end of the trail cut',
    async ({ testStore }) => {
      const { store } = testStore;
      await usedStore(store, 3);
      const warnings: string[] = [];
      const log = pino(
        { level: 'warn' },
        { write: (line: string) => warnings.push((JSON.parse(line) as { msg: string }).msg) },
      );
      const metrics = new Metrics();
      const tampering = async () =>
        (await metrics.registry.getSingleMetric('dea_audit_trail_tampering_total')?.get())?.values;
      const exporter = new AuditExport(undefined, store, KEYS, metrics, log, {
        holder: 'warning',
        now: () => NOW + 100,
        pollMs: 600_000,
      });
      try {
        await forge(testStore, 'forged', null);
        await exporter.round();
        expect(warnings).toEqual([
          expect.stringMatching(/^audit trail: 1 entries .* not written by the product/),
        ]);
        await execRaw(testStore, `delete from audit_log where seq = 3`);
        await execRaw(testStore, `delete from audit_chain where name = 'head'`);
        await appendSome(store, 1, NOW + 50);
        await exporter.round();
        expect(await tampering()).toEqual([
          expect.objectContaining({ labels: { finding: 'set_aside' }, value: 1 }),
          expect.objectContaining({ labels: { finding: 'cut' }, value: 1 }),
        ]);
        expect(warnings[1]).toMatch(
          /^audit trail: the head of the trail was missing after entry #2: the end of the trail was cut/,
        );
      } finally {
        await exporter.close(1000);
      }
    },
  );
});
