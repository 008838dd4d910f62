import { DefaultQueryCompiler } from 'kysely';
import { describe, vi } from 'vitest';
import { createServiceKey } from './service-keys.js';
import { radiusAuthenticator } from '../../radius/start-radius.js';
import * as keyedHashes from '../../crypto/keyed-hash.js';
import { appTest } from '../../testing/fixtures.js';
import { recordSqliteRuns, recordStatements } from '../../testing/recorded-sql.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

// The real keyed hash and comparison, counted (in this file's own module graph, vitest.config.ts).
vi.mock('../../crypto/keyed-hash.js', async (importOriginal) => {
  const real = await importOriginal<typeof keyedHashes>();
  return {
    ...real,
    keyedHash: vi.fn(real.keyedHash),
    constantTimeEqual: vi.fn(real.constantTimeEqual),
    sameDigest: vi.fn(real.sameDigest),
    digestBytes: vi.fn(real.digestBytes),
  };
});

/** The work of one verification: the statements the store ran, and the keyed hashes made and compared. */
interface Work {
  statements: string[];
  hashes: number;
  comparisons: number;
  /** Comparisons of strings (each makes two Buffers): none in a verification. */
  stringComparisons: number;
  /** Keyed hashes decoded to raw bytes. */
  decoded: number;
}

async function workOf(t: TestApp, run: () => Promise<unknown>): Promise<Work> {
  const recording = recordStatements(t.services.store.kind);
  vi.mocked(keyedHashes.keyedHash).mockClear();
  vi.mocked(keyedHashes.constantTimeEqual).mockClear();
  vi.mocked(keyedHashes.sameDigest).mockClear();
  vi.mocked(keyedHashes.digestBytes).mockClear();
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
    comparisons: vi.mocked(keyedHashes.sameDigest).mock.calls.length,
    stringComparisons: vi.mocked(keyedHashes.constantTimeEqual).mock.calls.length,
    decoded: vi.mocked(keyedHashes.digestBytes).mock.calls.length,
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
      // The key read with the user (one statement on PostgreSQL, two on the embedded store), then
      // the verification (one call on PostgreSQL, a transaction's statements on the embedded store).
      expect(known.statements.length).toBeGreaterThan(kind === 'postgres' ? 1 : 2);
      expect(unknown.statements).toEqual(known.statements);
      // The input hashed in every form of every alphabet (the same for every name, known or not).
      expect(known.hashes).toBeGreaterThan(0);
      if (kind === 'postgres') {
        // One call of dea_verify_code, which compares in the statement.
        expect(known.statements.filter((text) => text.includes('dea_verify_code'))).toHaveLength(1);
      } else {
        expect(known.comparisons).toBeGreaterThan(0);
        // Raw digests compared, each decoded once (the input's candidates of the user's form and
        // the codes held), never strings made into two Buffers for each comparison (the one
        // comparison of strings left is the door's check of the service key).
        expect(known.stringComparisons).toBe(1);
        expect(known.decoded).toBeLessThan(known.comparisons);
      }
      // Decoded are the codes held as they are read (the known user holds one; the rows read
      // differ alike), the rest compared with a decoy decoded once for the process.
      expect(known.decoded - unknown.decoded).toBe(kind === 'postgres' ? 0 : 1);
      expect({ ...unknown, decoded: 0 }).toEqual({ ...known, decoded: 0 });
    },
  );
});

describe.each(STORE_KINDS)('a verification on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'builds no query: every statement it runs was compiled once, whatever the outcome',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const stored = await t.services.store.users.findById(user.id);
      const attempt = (code: string, known = true) =>
        t.services.verification.verify({
          user: known ? stored : undefined,
          code,
          actor: 'test',
          clientAddress: null,
          now: t.clock.now(),
        });
      // Every statement prepared and every cache filled first, by each outcome once (a statement
      // is compiled at its first run: store/sql/compiled-once.ts).
      expect(await attempt('WRONG23456')).toMatchObject({ valid: false });
      expect(await attempt('WRONG23456', false)).toMatchObject({ valid: false });
      expect(await attempt(await t.codeOnScreen(user))).toMatchObject({ valid: true });
      const code = await t.codeOnScreen(user);
      const compiles = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery');
      try {
        expect(await attempt('WRONG23456')).toMatchObject({ valid: false });
        expect(await attempt(code, false)).toMatchObject({ valid: false });
        expect(await attempt(code)).toMatchObject({ valid: true });
        // The audit trail's sealer and export run on their own beside (ADR 0018): their reads of
        // the trail may fall into these verifications.
        const built = compiles.mock.results
          .map((result) => (result.value as { sql: string }).sql)
          .filter(
            (text) =>
              !/audit_chain|\bseq\b|pg_advisory_xact_lock/.test(text) &&
              !/^select\b[\s\S]*\baudit_\w+/i.test(text),
          );
        expect(built).toEqual([]);
      } finally {
        compiles.mockRestore();
      }
    },
  );
});

describe.each(STORE_KINDS)('the doors of verification on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'the API, /validate/check (JSON and form) and RADIUS each verify with one call of the store',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'doors',
        ['verify'],
        t.clock.now(),
      );
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const bearer = { authorization: `Bearer ${key}` };
      const doors: Record<string, (code: string) => Promise<boolean>> = {
        'API by id': async (code) =>
          (
            await t.app.inject({
              method: 'POST',
              url: '/dea/api/tempPass/verify',
              headers: bearer,
              payload: { userId: user.id, code },
            })
          ).json<{ result: { valid: boolean } }>().result.valid,
        'API by name': async (code) =>
          (
            await t.app.inject({
              method: 'POST',
              url: '/dea/api/tempPass/verify',
              headers: bearer,
              payload: { username: user.username, code },
            })
          ).json<{ result: { valid: boolean } }>().result.valid,
        '/validate/check JSON': async (code) =>
          (
            await t.app.inject({
              method: 'POST',
              url: '/validate/check',
              headers: { authorization: key },
              payload: { user: user.username, pass: code },
            })
          ).json<{ result: { value: boolean } }>().result.value,
        '/validate/check form': async (code) =>
          (
            await t.app.inject({
              method: 'POST',
              url: '/validate/check',
              headers: { authorization: key, 'content-type': 'application/x-www-form-urlencoded' },
              payload: new URLSearchParams({ user: user.username, pass: code }).toString(),
            })
          ).json<{ result: { value: boolean } }>().result.value,
        RADIUS: async (code) =>
          (await radiusAuthenticator(t.services)(user.username, code, '127.0.0.1')).accept,
      };
      const calls = vi.spyOn(t.services.store.codes, 'verify');
      try {
        for (const [door, verify] of Object.entries(doors)) {
          const code = await t.codeOnScreen(user);
          calls.mockClear();
          expect(await verify('WRONG23456'), door).toBe(false);
          expect(await verify(code), door).toBe(true);
          expect(calls, door).toHaveBeenCalledTimes(2);
        }
      } finally {
        calls.mockRestore();
      }
    },
  );
});

describe('a successful verification on the embedded store', () => {
  appTest.override('storeKind', 'sqlite');

  appTest(
    'reads the user’s policy and failure count in one statement, then the codes held',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const stored = await t.services.store.users.findById(user.id);
      const attempt = (code: string) =>
        t.services.verification.verify({
          user: stored,
          code,
          actor: 'test',
          clientAddress: null,
          now: t.clock.now(),
        });
      // Every statement prepared first.
      expect(await attempt(await t.codeOnScreen(user))).toMatchObject({ valid: true });
      const code = await t.codeOnScreen(user);
      const { statements } = await workOf(t, async () =>
        expect(await attempt(code)).toMatchObject({ valid: true }),
      );
      const reads = statements.filter((text) => /^\s*select\b/i.test(text));
      // The policy with the count, then the codes held.
      expect(reads).toHaveLength(2);
      expect(reads[0]).toMatch(/\bpolicies\b[\s\S]*\bverify_failures\b/);
      expect(reads[1]).toMatch(/\bfrom "codes"/);
    },
  );

  appTest(
    'writes the user’s failure count only when there is one to clear: none after no failure, one clear after a failure',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const stored = await t.services.store.users.findById(user.id);
      const attempt = (code: string) =>
        t.services.verification.verify({
          user: stored,
          code,
          actor: 'test',
          clientAddress: null,
          now: t.clock.now(),
        });
      // Every statement prepared first.
      expect(await attempt(await t.codeOnScreen(user))).toMatchObject({ valid: true });
      const failureWrites = async (run: () => Promise<unknown>): Promise<string[]> => {
        const recorded = recordSqliteRuns();
        try {
          await run();
        } finally {
          recorded.stop();
        }
        return recorded.runs.filter((text) =>
          /^\s*(insert|update|delete)\b[\s\S]*\bverify_failures\b/i.test(text),
        );
      };
      const code = await t.codeOnScreen(user);
      expect(
        await failureWrites(async () => expect(await attempt(code)).toMatchObject({ valid: true })),
      ).toEqual([]);
      const next = await t.codeOnScreen(user);
      expect(await attempt('WRONG23456')).toMatchObject({ valid: false });
      expect(await t.services.store.verifyFailures.find(user.id)).toMatchObject({ failures: 1 });
      const writes = await failureWrites(async () =>
        expect(await attempt(next)).toMatchObject({ valid: true }),
      );
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(/^update/i);
      expect(await t.services.store.verifyFailures.find(user.id)).toBeUndefined();
    },
  );
});
