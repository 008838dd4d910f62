import { describe } from 'vitest';
import { API, bodies } from '../../testing/api-bodies.js';
import { appTest } from '../../testing/fixtures.js';
import { recordStatements } from '../../testing/recorded-sql.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

/** The statements the store ran for `run` (the health check's ping and the trail's seal left out). */
async function statementsOf(t: TestApp, run: () => Promise<unknown>): Promise<string[]> {
  const recording = recordStatements(t.services.store.kind);
  try {
    await run();
  } finally {
    recording.stop();
  }
  // The audit trail's sealer and export run on their own beside (ADR 0018).
  return recording
    .texts()
    .filter(
      (text) =>
        text.trim().toLowerCase() !== 'select 1' &&
        !/audit_chain|\bseq\b|pg_advisory_xact_lock/.test(text) &&
        !/^select\b[\s\S]*\baudit_\w+/i.test(text),
    );
}

describe.each(STORE_KINDS)('a code issued on screen on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'reads the user’s policies in one statement and no row of the user of its own',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const signedIn = await t.signIn(user);
      const issue = async () => {
        const response = await t.call(`${API}/tempPass/create`, bodies.create(user.id), signedIn);
        expect(response.json<{ result: { rows: unknown[] } | null }>().result?.rows).toHaveLength(1);
      };
      // Every statement prepared and every cache filled first.
      await issue();
      const statements = await statementsOf(t, issue);
      // The Self Service and the Channel Registration policy in one read.
      expect(statements.filter((text) => /\bpolicies\b/.test(text))).toHaveLength(1);
      // The user's existence is the insert's own condition (and, on PostgreSQL, dea_issue_code's).
      expect(statements.filter((text) => /^\s*select\s+"id"\s+from\s+"users"/i.test(text))).toEqual([]);
      expect(statements.filter((text) => /insert into "codes"|dea_issue_code/.test(text))).toHaveLength(1);
    },
  );

  appTest('refuses a code to a user removed meanwhile, and stores none', async ({ startApp, expect }) => {
    const t = await startApp();
    const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
    const now = t.clock.now();
    const outcome = await t.services.store.codes.issue(
      {
        id: 'gone-code',
        userId: 'nobody-has-this-id',
        codeHash: 'h',
        createdAt: now,
        expiresAt: now + 60_000,
        uses: 1,
        channelType: null,
      },
      5,
      { event: 'code.issued', userId: user.id },
    );
    expect(outcome).toEqual({ issued: false, reason: 'no-user' });
    expect(await t.services.store.codes.countActive('nobody-has-this-id', now)).toBe(0);
  });
});
