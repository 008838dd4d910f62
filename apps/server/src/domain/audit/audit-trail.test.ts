import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { deriveKeys } from '../../crypto/secret-keys.js';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { recordStatements } from '../../testing/recorded-sql.js';
import { execRaw } from '../../testing/store-dump.js';
import { STORE_KINDS, TEST_STORE_KEYS, type TestStore } from '../../testing/stores.js';
import { purgeStore, type RetentionRules } from '../retention/retention.js';
import { auditStampKeyOf, SEAL_BATCH, sealAuditTrail, verifyAuditTrail } from './audit-trail.js';

const NOW = Date.UTC(2026, 10, 26, 9, 0, 0);
const DAY = 86_400_000;
// The keys whose audit-entry key stamps what a test store writes.
const KEYS = TEST_STORE_KEYS;

async function appendSome(store: Store, count: number, at = NOW): Promise<void> {
  for (let index = 0; index < count; index += 1)
    await store.audit.append({ event: 'user.created', actor: 'cli', details: { index } }, at + index);
}

async function seqs(store: Store): Promise<{ seq: number; id: string }[]> {
  return (await store.auditTrail.sealedAfter(0, 10_000)).map(({ seq, id }) => ({ seq, id }));
}

function secondStore(testStore: TestStore): Promise<Store> {
  return openStore({
    dataDir: testStore.dataDir,
    auditStampKey: auditStampKeyOf(KEYS),
    ...(testStore.databaseUrl !== undefined && { databaseUrl: testStore.databaseUrl }),
  });
}

function rules(auditDays: number, destinations: string[] = [], unexported = false): RetentionRules {
  return {
    retention: {
      auditMs: auditDays * DAY,
      auditUnexported: unexported,
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
    auditDestinations: destinations,
  };
}

describe.each(STORE_KINDS)('the audit trail on %s', (kind) => {
  storeTest.override('storeKind', kind);

  // On the embedded store a second instance is another process (one server per file, the CLI
  // beside it): two in one process would wait on each other's lock with the thread blocked.
  storeTest(
    'entries appended and sealed at once by many writers (two store instances on PostgreSQL) form one chain without forks',
    async ({ testStore }) => {
      const { store } = testStore;
      const other = kind === 'postgres' ? await secondStore(testStore) : store;
      try {
        const writers = [store, other].flatMap((writer, w) =>
          Array.from({ length: 4 }, (_, n) =>
            (async () => {
              for (let index = 0; index < 10; index += 1) {
                await writer.audit.append(
                  { event: 'user.created', actor: `writer-${w}-${n}`, details: { index } },
                  NOW + index,
                );
                if (index % 3 === 0) await sealAuditTrail(writer, KEYS, NOW);
              }
            })(),
          ),
        );
        await Promise.all(writers);
        await Promise.all([sealAuditTrail(store, KEYS, NOW), sealAuditTrail(other, KEYS, NOW)]);
      } finally {
        if (other !== store) await other.close();
      }
      const sealed = await seqs(store);
      expect(sealed.map(({ seq }) => seq)).toEqual(Array.from({ length: 80 }, (_, index) => index + 1));
      expect(new Set(sealed.map(({ id }) => id)).size).toBe(80);
      const verified = await verifyAuditTrail(store, KEYS);
      expect(verified).toMatchObject({
        checked: 80,
        firstSeq: 1,
        lastSeq: 80,
        unsealed: 0,
        broken: undefined,
      });
    },
  );

  // Sealers on two instances placing overlapping entries at the same moment once deadlocked on
  // PostgreSQL (each UPDATE took its row locks in its own order); they now place in turn.
  storeTest.runIf(kind === 'postgres')(
    'many sealers on two instances over the same entries at once neither deadlock nor fork',
    async ({ testStore }) => {
      const { store } = testStore;
      const other = await secondStore(testStore);
      try {
        // Entries arrive out of time order while sealers on both instances run, so sealers read
        // different sets of entries and place them with different plans.
        let writing = true;
        const writers = Array.from({ length: 4 }, (_, w) =>
          (async () => {
            for (let index = 0; index < 40; index += 1)
              await (w % 2 === 0 ? store : other).audit.append(
                { event: 'user.created', actor: `writer-${w}`, details: { index } },
                NOW + (w % 2 === 0 ? index : 1_000 - index),
              );
          })(),
        );
        const sealers = Array.from({ length: 6 }, (_, n) =>
          (async () => {
            while (writing) await sealAuditTrail(n % 2 === 0 ? store : other, KEYS, NOW);
          })(),
        );
        await Promise.all(writers);
        writing = false;
        await Promise.all(sealers);
        await Promise.all([sealAuditTrail(store, KEYS, NOW), sealAuditTrail(other, KEYS, NOW)]);
      } finally {
        await other.close();
      }
      expect((await seqs(store)).map(({ seq }) => seq)).toEqual(
        Array.from({ length: 160 }, (_, index) => index + 1),
      );
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({
        checked: 160,
        unsealed: 0,
        broken: undefined,
      });
    },
  );

  storeTest(
    'gives the turn between full batches of a seal, after each, with the time the batch took',
    async ({ testStore }) => {
      const { store } = testStore;
      for (let index = 0; index < SEAL_BATCH * 2 + 10; index += 1)
        await store.audit.append({ event: 'user.created', actor: 'cli', details: { index } }, NOW + index);
      const turns: number[] = [];
      const sealed = await sealAuditTrail(store, KEYS, NOW, undefined, async (stepMs) => {
        turns.push(stepMs);
      });
      expect(sealed).toBe(SEAL_BATCH * 2 + 10);
      expect(turns).toHaveLength(2);
      for (const stepMs of turns) expect(stepMs).toBeGreaterThan(0);
      expect((await verifyAuditTrail(store, KEYS)).broken).toBeUndefined();
    },
  );

  storeTest('verification names an entry changed behind the product’s back', async ({ testStore }) => {
    await appendSome(testStore.store, 6);
    await sealAuditTrail(testStore.store, KEYS, NOW);
    const [, , third] = await seqs(testStore.store);
    await execRaw(testStore, `update audit_log set details = $1 where seq = 3`, ['{"index":99}']);
    const verified = await verifyAuditTrail(testStore.store, KEYS);
    expect(verified.broken).toMatchObject({ seq: 3, id: third?.id, event: 'user.created' });
    expect(verified.broken?.reason).toMatch(/changed/);
  });

  storeTest('verification names an entry removed, and a tail removed', async ({ testStore }) => {
    await appendSome(testStore.store, 6);
    await sealAuditTrail(testStore.store, KEYS, NOW);
    await execRaw(testStore, `delete from audit_log where seq = 4`);
    expect((await verifyAuditTrail(testStore.store, KEYS)).broken).toMatchObject({
      seq: 4,
      reason: expect.stringMatching(/#4 .*missing/) as unknown,
    });
    await execRaw(testStore, `delete from audit_log where seq >= 4`);
    expect((await verifyAuditTrail(testStore.store, KEYS)).broken).toMatchObject({
      seq: 4,
      reason: expect.stringMatching(/#4 to #6 .*missing/) as unknown,
    });
  });

  storeTest('verification names entries reordered', async ({ testStore }) => {
    await appendSome(testStore.store, 6);
    await sealAuditTrail(testStore.store, KEYS, NOW);
    const before = await seqs(testStore.store);
    await execRaw(testStore, `update audit_log set seq = -2 where seq = 2`);
    await execRaw(testStore, `update audit_log set seq = 2 where seq = 5`);
    await execRaw(testStore, `update audit_log set seq = 5 where seq = -2`);
    const verified = await verifyAuditTrail(testStore.store, KEYS);
    expect(verified.broken).toMatchObject({ seq: 2, id: before[4]?.id });
  });

  storeTest(
    'the chain verifies across a secret rotation, and once the old secret is retired',
    async ({ testStore }) => {
      const { store } = testStore;
      await appendSome(store, 3);
      await sealAuditTrail(store, KEYS, NOW);
      const newSecret = randomBytes(32);
      const duringRotation = { ...deriveKeys(newSecret), previous: KEYS };
      await appendSome(store, 2, NOW + 10);
      await sealAuditTrail(store, duringRotation, NOW + 20);
      expect(await verifyAuditTrail(store, duringRotation)).toMatchObject({ checked: 5, broken: undefined });
      const retired = deriveKeys(newSecret);
      expect(await verifyAuditTrail(store, retired)).toMatchObject({
        checked: 2,
        lastSeq: 5,
        broken: undefined,
      });
      await execRaw(testStore, `update audit_log set actor = 'someone' where seq = 5`);
      expect((await verifyAuditTrail(store, retired)).broken).toMatchObject({ seq: 5 });
    },
  );

  storeTest(
    'a round reads what waits and where the trail ends in one statement, and continues from the signed head when no sealed entry is left',
    async ({ testStore }) => {
      const { store } = testStore;
      await appendSome(store, 3, NOW - 400 * DAY);
      await sealAuditTrail(store, KEYS, NOW);
      // The purge removes every sealed entry: only its checkpoint and the signed head say where the trail ends.
      expect(
        await purgeStore(store, rules(365), {
          now: () => NOW,
          holder: 'test',
          actor: 'cli',
          kinds: ['audit'],
          keys: KEYS,
        }),
      ).toMatchObject({ removed: { audit: 3 } });
      await appendSome(store, 2, NOW + 10);
      const recorded = recordStatements(kind);
      try {
        // The purge's own entry and the two.
        expect(await sealAuditTrail(store, KEYS, NOW)).toBe(3);
        const reads = recorded.texts().filter((text) => /^select/i.test(text.trim()));
        expect(reads).toHaveLength(1);
        expect(reads[0]).toMatch(/"seq" is null/);
        // Written: the places, and the head's mark.
        expect(recorded.texts()).toHaveLength(3);
        // Nothing waits: one statement, nothing written.
        const before = recorded.texts().length;
        expect(await sealAuditTrail(store, KEYS, NOW)).toBe(0);
        expect(recorded.texts().length - before).toBe(1);
      } finally {
        recorded.stop();
      }
      expect((await seqs(store)).map(({ seq }) => seq)).toEqual([4, 5, 6]);
      // Chained onto the head: the checkpoint vouches for what went before.
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({
        firstSeq: 4,
        checked: 3,
        broken: undefined,
      });
    },
  );

  storeTest(
    'the purge leaves a signed checkpoint: what remains verifies, and what no destination received stays',
    async ({ testStore }) => {
      const { store } = testStore;
      await appendSome(store, 5, NOW - 400 * DAY);
      await appendSome(store, 3, NOW - DAY);
      const purge = (retention: RetentionRules) =>
        purgeStore(store, retention, {
          now: () => NOW,
          holder: 'test',
          actor: 'cli',
          kinds: ['audit'],
          keys: KEYS,
        });
      // The file destination has received the first two entries only.
      await sealAuditTrail(store, KEYS, NOW);
      await store.auditTrail.setPosition('file', 2, NOW);
      expect(await purge(rules(365, ['file']))).toMatchObject({ removed: { audit: 2 } });
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({ firstSeq: 3, broken: undefined });
      expect(await purge(rules(365, ['file'], true))).toMatchObject({ removed: { audit: 3 } });
      const verified = await verifyAuditTrail(store, KEYS);
      // The 3 recent entries and the first purge's own entry remain; the second's is not sealed yet.
      expect(verified).toMatchObject({ firstSeq: 6, checked: 4, unsealed: 1, broken: undefined });
      // An entry written late with an old time (sealed after newer ones) goes too, its run checkpointed.
      await appendSome(store, 1, NOW - 500 * DAY);
      expect(await purge(rules(365, ['file'], true))).toMatchObject({ removed: { audit: 1 } });
      expect(await verifyAuditTrail(store, KEYS)).toMatchObject({ checked: 5, broken: undefined });
      await execRaw(testStore, `update audit_chain set seq = 7 where name = 'checkpoint:purge:5'`);
      expect((await verifyAuditTrail(store, KEYS)).broken?.reason).toMatch(/checkpoint:purge:5 was changed/);
    },
  );
});
