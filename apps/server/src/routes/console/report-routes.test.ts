import { parse } from 'csv-parse/sync';
import { describe } from 'vitest';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
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

describe.each(STORE_KINDS)('the console reports on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'counts each day of the period in the viewer’s time zone, by group, channel, agent and source, and as CSV',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { a, b } = await aDayOfCodes(t);
      const auditor = await consoleAgent(t, API, 'auditor');
      const period = 'from=2026-11-20&to=2026-11-22';

      const berlin = (await auditor.get(`/reports?${period}&timeZone=Europe/Berlin`)).json<{
        result: Reports;
      }>().result;
      expect(berlin).toMatchObject({ from: '2026-11-20', to: '2026-11-22', timeZone: 'Europe/Berlin' });
      expect(berlin.days).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
      expect(countsOf(berlin, 'issued', 'total')).toEqual({ all: [0, 2, 1] });
      expect(countsOf(berlin, 'issued', 'source')).toEqual({
        'self-service': [0, 2, 0],
        'help desk': [0, 0, 1],
      });
      expect(countsOf(berlin, 'issued', 'agent')).toEqual({ 'agent-x': [0, 0, 1] });
      expect(countsOf(berlin, 'issued', 'channel')).toEqual({ screen: [0, 2, 0], sms: [0, 0, 1] });
      expect(countsOf(berlin, 'issued', 'group')).toEqual({
        [`group-${a.username}`]: [0, 1, 0],
        [`group-${b.username}`]: [0, 1, 1],
      });
      expect(countsOf(berlin, 'expired', 'total')).toEqual({ all: [0, 1, 0] });
      expect(countsOf(berlin, 'expired', 'group')).toEqual({ [`group-${a.username}`]: [0, 1, 0] });
      expect(countsOf(berlin, 'revoked', 'channel')).toEqual({ screen: [0, 1, 0] });
      expect(countsOf(berlin, 'revoked', 'group')).toEqual({ [`group-${b.username}`]: [0, 1, 0] });
      expect(countsOf(berlin, 'used', 'total')).toEqual({ all: [0, 0, 1] });
      expect(countsOf(berlin, 'lockouts', 'group')).toEqual({ [`group-${a.username}`]: [0, 0, 1] });
      expect(countsOf(berlin, 'signinFailures', 'reason')).toEqual({ 'unknown-user': [1, 0, 0] });
      expect(countsOf(berlin, 'delivered', 'provider')).toEqual({ http: [0, 0, 1] });
      expect(countsOf(berlin, 'deliveryFailed', 'channel')).toEqual({ email: [0, 1, 0] });

      // The same entries in UTC: 23:30 is still the 21st.
      const utc = (await auditor.get(`/reports?${period}&timeZone=UTC`)).json<{ result: Reports }>().result;
      expect(countsOf(utc, 'issued', 'total')).toEqual({ all: [0, 3, 0] });

      const csv = await auditor.get(`/reports.csv?${period}&timeZone=Europe/Berlin&metric=issued`);
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers['content-disposition']).toBe(
        'attachment; filename="dea-report-issued-2026-11-20-2026-11-22.csv"',
      );
      const rows = parse<Record<string, string>>(csv.body, { columns: true });
      expect(new Set(rows.map((row) => row.metric))).toEqual(new Set(['issued']));
      expect(rows).toContainEqual({
        metric: 'issued',
        by: 'agent',
        key: 'agent-x',
        day: '2026-11-22',
        count: '1',
      });

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

      // Without a period: the 30 days up to today in the time zone.
      const recent = (await auditor.get('/reports?timeZone=Europe/Berlin')).json<{ result: Reports }>()
        .result;
      expect(recent.days).toHaveLength(30);
      expect(recent.to).toBe('2026-11-24');
    },
  );

  appTest(
    "a scoped auditor's reports count only the members of their groups, in the API",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { a } = await aDayOfCodes(t);
      const scoped = await consoleAgent(t, API, 'auditor', true, ['--scope', `group-${a.username}`]);
      const reports = (await scoped.get('/reports?from=2026-11-20&to=2026-11-22&timeZone=UTC')).json<{
        result: Reports;
      }>().result;
      expect(countsOf(reports, 'issued', 'total')).toEqual({ all: [0, 1, 0] });
      expect(countsOf(reports, 'issued', 'group')).toEqual({ [`group-${a.username}`]: [0, 1, 0] });
      expect(countsOf(reports, 'revoked', 'total')).toEqual({ all: [0, 0, 0] });
      expect(countsOf(reports, 'delivered', 'total')).toEqual({ all: [0, 0, 0] });
      // A failure without a user is no one's in the scope.
      expect(countsOf(reports, 'signinFailures', 'total')).toEqual({ all: [0, 0, 0] });
      const csv = parse<Record<string, string>>(
        (await scoped.get('/reports.csv?from=2026-11-20&to=2026-11-22&timeZone=UTC')).body,
        { columns: true },
      );
      expect(
        csv.some((row) => (row.key ?? '').startsWith('group-') && row.key !== `group-${a.username}`),
      ).toBe(false);
    },
  );

  appTest('is for auditors and administrators only, and names a bad period', async ({ startApp, expect }) => {
    const t = await startApp();
    expect((await (await consoleAgent(t, API, 'helpdesk')).get('/reports')).statusCode).toBe(403);
    expect((await (await consoleAgent(t, API, 'helpdesk')).get('/reports.csv')).statusCode).toBe(403);
    expect((await (await consoleAgent(t, API, 'auditor', false)).get('/reports')).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: `${API}/reports` })).statusCode).toBe(401);
    const admin = await consoleAgent(t, API, 'admin');
    expect((await admin.get('/reports')).statusCode).toBe(200);
    for (const [query, said] of [
      ['timeZone=Mars/Olympus', 'Mars/Olympus is not an IANA time zone'],
      ['from=2026-11-22&to=2026-11-20', 'from must not be after to'],
      ['from=2025-01-01&to=2026-11-20', 'at most 366 days'],
      ['from=2026-02-30', 'from must be a date'],
    ] as const) {
      const answer = await admin.get(`/reports?${query}`);
      expect(answer.statusCode).toBe(400);
      expect(answer.body).toContain(said);
    }
  });
});
