import { describe, vi } from 'vitest';
import { createServiceKey } from './service-keys.js';
import * as keyedHashes from '../crypto/keyed-hash.js';
import { appTest } from '../testing/fixtures.js';
import { recordPostgresQueries, recordSqliteRuns } from '../testing/recorded-sql.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

// The real keyed hash and comparison, counted.
vi.mock('../crypto/keyed-hash.js', async (importOriginal) => {
  const real = await importOriginal<typeof keyedHashes>();
  return { ...real, keyedHash: vi.fn(real.keyedHash), constantTimeEqual: vi.fn(real.constantTimeEqual) };
});

/** The work of one verification: the statements the store ran, and the keyed hashes made and compared. */
interface Work {
  statements: string[];
  hashes: number;
  comparisons: number;
}

async function workOf(t: TestApp, run: () => Promise<unknown>): Promise<Work> {
  const recording =
    t.services.store.kind === 'postgres'
      ? (() => {
          const recorded = recordPostgresQueries();
          return { texts: () => recorded.queries.map((query) => query.text), stop: () => recorded.stop() };
        })()
      : (() => {
          const recorded = recordSqliteRuns();
          return { texts: () => recorded.runs, stop: () => recorded.stop() };
        })();
  vi.mocked(keyedHashes.keyedHash).mockClear();
  vi.mocked(keyedHashes.constantTimeEqual).mockClear();
  try {
    await run();
  } finally {
    recording.stop();
  }
  return {
    // The health check's ping and the audit trail's seal (ADR 0018), which run on their own
    // beside the requests, may fall into any verification.
    statements: recording
      .texts()
      .filter((text) => text.trim().toLowerCase() !== 'select 1' && !/audit_chain|\bseq\b/.test(text)),
    hashes: vi.mocked(keyedHashes.keyedHash).mock.calls.length,
    comparisons: vi.mocked(keyedHashes.constantTimeEqual).mock.calls.length,
  };
}

describe.each(STORE_KINDS)('verification of an unknown user name on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'does the work of a known user with a wrong code: the same statements, keyed hashes and comparisons',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'pam',
        ['verify'],
        t.clock.now(),
      );
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      await t.codeOnScreen(user);
      const check = (name: string) =>
        t.app.inject({
          method: 'POST',
          url: '/validate/check',
          headers: { authorization: key },
          payload: { user: name, pass: 'WRONG23456' },
        });
      // Every statement prepared and every cache filled before anything is counted.
      await check(user.username);
      await check('nobody-here');

      const known = await workOf(t, () => check(user.username));
      const unknown = await workOf(t, () => check('nobody-at-all'));
      expect(known.statements.length).toBeGreaterThan(2);
      expect(unknown.statements).toEqual(known.statements);
      expect(known.comparisons).toBeGreaterThan(0);
      expect(unknown).toEqual(known);
    },
  );
});
