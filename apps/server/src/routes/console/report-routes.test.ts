import { parse } from 'csv-parse/sync';
import { describe } from 'vitest';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { TestApp, TestUser } from '../../testing/test-app.js';

const API = '/dea/admin-api';

interface Reports {
  from: string;
  to: string;
  timeZone: string;
  days: string[];
  reports: {
    metric: string;
    breakdowns: { by: string; rows: { key: string; counts: number[]; total: number }[] }[];
  }[];
}

/** The counts of one report's breakdown, by key. */
function countsOf(reports: Reports, metric: string, by: string): Record<string, number[]> {
  const breakdown = reports.reports
    .find((report) => report.metric === metric)
    ?.breakdowns.find((b) => b.by === by);
  return Object.fromEntries((breakdown?.rows ?? []).map((row) => [row.key, row.counts]));
}

/**
 * Two users in groups of their own on 2026-11-21 (the test clock starts at 09:00 UTC): A's code on
 * screen expires unused, B's is taken out of use, a help-desk agent issues B a code by SMS at 23:30
 * UTC (00:30 on the 22nd in Berlin), and the trail holds a use, a lockout, a sign-in failure and
 * two deliveries.
 */
async function aDayOfCodes(t: TestApp): Promise<{ a: TestUser; b: TestUser }> {
  const { store } = t.services;
  const a = await t.createUser();
  const b = await t.createUser();
  await t.codeOnScreen(a);
  await t.codeOnScreen(b);
  const [held] = await store.codes.listActive(b.id, t.clock.now());
  await store.codes.invalidate(held?.id ?? '', t.clock.now() + 60_000);
  const late = Date.UTC(2026, 10, 21, 23, 30);
  await store.audit.append(
    { event: 'code.issued', userId: b.id, actor: 'console:agent-x', details: { channel: 'sms' } },
    late,
  );
  await store.audit.append(
    {
      event: 'code.sent',
      userId: b.id,
      actor: 'console:agent-x',
      details: { channel: 'sms', provider: 'http' },
    },
    late + 1000,
  );
  await store.audit.append(
    {
      event: 'code.delivery_failed',
      userId: a.id,
      actor: a.id,
      details: { channel: 'email', provider: 'smtp', reason: 'refused' },
    },
    Date.UTC(2026, 10, 21, 12),
  );
  await store.audit.append(
    { event: 'code.used', userId: a.id, actor: 'radius', details: { channel: 'screen' } },
    late,
  );
  await store.audit.append({ event: 'code.verify_lockout', userId: a.id, actor: 'radius' }, late);
  await store.audit.append(
    { event: 'signin.failed', userId: null, actor: 'nobody', details: { reason: 'unknown-user' } },
    Date.UTC(2026, 10, 20, 10),
  );
  t.clock.advance(3 * 86_400_000);
  return { a, b };
}

describe.each(DOOR_STORE_KINDS)('the console reports on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'answer the period in the envelope and as a CSV download, the same as dea report, and a scoped auditor its groups alone',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { a } = await aDayOfCodes(t);
      const auditor = await consoleAgent(t, API, 'auditor');
      const period = 'from=2026-11-20&to=2026-11-22';

      const berlin = await auditor.get(`/reports?${period}&timeZone=Europe/Berlin`);
      expect(berlin.json()).toMatchObject({
        error: 0,
        result: { from: '2026-11-20', to: '2026-11-22', timeZone: 'Europe/Berlin' },
      });
      expect(countsOf(berlin.json<{ result: Reports }>().result, 'issued', 'total')).toEqual({
        all: [0, 2, 1],
      });

      const csv = await auditor.get(`/reports.csv?${period}&timeZone=Europe/Berlin&metric=issued`);
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers['content-disposition']).toBe(
        'attachment; filename="dea-report-issued-2026-11-20-2026-11-22.csv"',
      );
      const rows = parse<Record<string, string>>(csv.body, { columns: true });
      expect(new Set(rows.map((row) => row.metric))).toEqual(new Set(['issued']));

      // dea report answers the same counts, from the same rule.
      const all = await auditor.get(`/reports.csv?${period}&timeZone=Europe/Berlin`);
      const cli = await t.dea([
        'report',
        '--from',
        '2026-11-20',
        '--to',
        '2026-11-22',
        '--time-zone',
        'Europe/Berlin',
        '--csv',
      ]);
      expect(cli.code).toBe(0);
      expect(cli.out).toBe(all.body.trimEnd());
      const text = await t.dea([
        'report',
        '--from',
        '2026-11-20',
        '--to',
        '2026-11-22',
        '--metric',
        'issued',
      ]);
      expect(text.out).toContain('issued 3  (group:');
      const wrong = await t.dea(['report', '--from', '2026-11-22', '--to', '2026-11-20']);
      expect(wrong.code).toBe(2);
      expect(wrong.err).toContain('--from must not be after to');

      // The caller's scope reaches the counts.
      const scoped = await consoleAgent(t, API, 'auditor', true, ['--scope', `group-${a.username}`]);
      const reports = (await scoped.get(`/reports?${period}&timeZone=UTC`)).json<{ result: Reports }>()
        .result;
      expect(countsOf(reports, 'issued', 'group')).toEqual({ [`group-${a.username}`]: [0, 1, 0] });
    },
  );

  appTest(
    'is for auditors and administrators only, and names a bad period with 400',
    async ({ startApp, expect }) => {
      const t = await startApp();
      expect((await (await consoleAgent(t, API, 'helpdesk')).get('/reports')).statusCode).toBe(403);
      expect((await (await consoleAgent(t, API, 'helpdesk')).get('/reports.csv')).statusCode).toBe(403);
      expect((await (await consoleAgent(t, API, 'auditor', false)).get('/reports')).statusCode).toBe(403);
      expect((await t.app.inject({ method: 'GET', url: `${API}/reports` })).statusCode).toBe(401);
      const admin = await consoleAgent(t, API, 'admin');
      expect((await admin.get('/reports')).statusCode).toBe(200);
      const answer = await admin.get('/reports?from=2026-11-22&to=2026-11-20');
      expect(answer.statusCode).toBe(400);
      expect(answer.body).toContain('from must not be after to');
    },
  );
});
