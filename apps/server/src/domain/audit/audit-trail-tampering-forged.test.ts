import pino from 'pino';
import { describe, expect } from 'vitest';
import { AuditExport } from '../../audit-export/audit-export.js';
import { entryStampOf } from '../../crypto/audit-chain.js';
import { deriveKeys } from '../../crypto/secret-keys.js';
import { Metrics } from '../../observability/metrics.js';
import { storeTest } from '../../testing/fixtures.js';
import { execRaw } from '../../testing/store-dump.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { beginAuditTrail, sealAuditTrail, verifyAuditTrail } from './audit-trail.js';
import { appendSome, DAY, forge, KEYS, NOW, seqs, usedStore } from '../../testing/audit-trail-tampering.js';

/**
 * Entries the product did not write (ADR 0032): never sealed, named by `verifyAuditTrail`, and
 * warned of by a server.
 */
describe.each(STORE_KINDS)('entries the product did not write on %s', (kind) => {
  storeTest.override('storeKind', kind);

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
