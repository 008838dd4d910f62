import { describe, expect } from 'vitest';
import { checkSecretFingerprint } from '../../store/secret-fingerprint.js';
import { storeTest } from '../../testing/fixtures.js';
import { execRaw } from '../../testing/store-dump.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { beginAuditTrail, sealAuditTrail, verifyAuditTrail } from './audit-trail.js';
import { appendSome, KEYS, NOW, seqs, usedStore } from '../../testing/audit-trail-tampering.js';

/**
 * The end of the audit trail cut by someone who can write the database but holds no secret: told
 * by `verifyAuditTrail`, and kept in the chain by the next seal.
 */
describe.each(STORE_KINDS)('the end of the audit trail cut on %s', (kind) => {
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
});
