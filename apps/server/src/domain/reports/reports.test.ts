import { type ConsoleReports, type PolicyOptions, usernameOrThrow } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { ConsoleRole, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DEFAULT_CODE_ALPHABET } from '../codes/code-settings.js';
import { issueCode } from '../codes/codes.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import { DomainError } from '../errors.js';
import {
  consoleReports,
  offsetSpans,
  type ReportRequest,
  reportsCsv,
  reportsOf,
  startOfDay,
} from './reports.js';

const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

describe("the reports' days in the viewer's time zone", () => {
  it('begin at local midnight, and a day when the clocks go back is 25 hours long', () => {
    const starts = ['2026-10-24', '2026-10-25', '2026-10-26'].map((date) =>
      startOfDay('Europe/Berlin', day(date)),
    );
    expect(starts.map((at) => new Date(at).toISOString())).toEqual([
      '2026-10-23T22:00:00.000Z',
      '2026-10-24T22:00:00.000Z',
      '2026-10-25T23:00:00.000Z',
    ]);
    // Summer time ends at 01:00 UTC on the 25th: from then on a time's day is counted at +1 hour.
    expect(offsetSpans('Europe/Berlin', starts)).toEqual([
      { from: Date.parse('2026-10-23T22:00:00Z'), offsetMs: 7_200_000 },
      { from: Date.parse('2026-10-25T01:00:00Z'), offsetMs: 3_600_000 },
    ]);
  });

  it('keep one offset where the zone has one, half-hour zones included', () => {
    const starts = [day('2026-11-20'), day('2026-11-21')].map((d) => startOfDay('Asia/Kolkata', d));
    expect(new Date(starts[0] ?? 0).toISOString()).toBe('2026-11-19T18:30:00.000Z');
    expect(offsetSpans('Asia/Kolkata', starts)).toEqual([{ from: starts[0], offsetMs: 19_800_000 }]);
  });
});

const DAY_MS = 86_400_000;
const ON_21ST = Date.UTC(2026, 10, 21, 9);
const LATE = Date.UTC(2026, 10, 21, 23, 30);
const NOW = ON_21ST + 3 * DAY_MS;
const PERIOD = { from: '2026-11-20', to: '2026-11-22' };
const SCREEN_POLICY = {
  enableECode: true,
  emergencyCodeDelivery: 'Display',
  codeLength: 10,
  codeAlphabet: DEFAULT_CODE_ALPHABET,
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 1,
} as PolicyOptions;

/** A user in a group of their own, named as given. */
async function userInGroup(store: Store, group: string): Promise<string> {
  const id = newId(ON_21ST);
  await store.users.create({
    id,
    username: usernameOrThrow(`report-${id.slice(-8).toLowerCase()}`),
    passwordHash: 'hash',
    fullName: 'Reported',
    locale: 'en',
    createdAt: ON_21ST,
  });
  const groupId = newId(ON_21ST);
  await store.groups.create({ id: groupId, name: group, priority: 0 });
  await store.groups.addMember(groupId, id);
  return id;
}

/**
 * Two users on 2026-11-21: A's code on screen expires unused, B's is taken out of use, an agent
 * issues B a code by SMS at 23:30 UTC (00:30 on the 22nd in Berlin), and the trail holds a use, a
 * lockout, a sign-in failure of no one (on the 20th) and two deliveries.
 */
async function aDayOfCodes(store: Store): Promise<{ a: string; b: string }> {
  const a = await userInGroup(store, 'group-a');
  const b = await userInGroup(store, '=group-b');
  const issue = (userId: string) =>
    issueCode(store, Buffer.alloc(32, 6), {
      userId,
      policy: SCREEN_POLICY,
      channelType: null,
      clientAddress: null,
      now: ON_21ST,
    });
  await issue(a);
  const held = await issue(b);
  await store.codes.invalidate(held.id, ON_21ST + 60_000);
  const entries: [Parameters<Store['audit']['append']>[0], number][] = [
    [{ event: 'code.issued', userId: b, actor: 'console:agent-x', details: { channel: 'sms' } }, LATE],
    [
      {
        event: 'code.sent',
        userId: b,
        actor: 'console:agent-x',
        details: { channel: 'sms', provider: 'http' },
      },
      LATE + 1000,
    ],
    [
      {
        event: 'code.delivery_failed',
        userId: a,
        actor: a,
        details: { channel: 'email', provider: 'smtp', reason: 'refused' },
      },
      Date.UTC(2026, 10, 21, 12),
    ],
    [{ event: 'code.used', userId: a, actor: 'radius', details: { channel: 'screen' } }, LATE],
    [{ event: 'code.verify_lockout', userId: a, actor: 'radius' }, LATE],
    [
      { event: 'signin.failed', userId: null, actor: 'nobody', details: { reason: 'unknown-user' } },
      Date.UTC(2026, 10, 20, 10),
    ],
  ];
  for (const [entry, at] of entries) await store.audit.append(entry, at);
  return { a, b };
}

/** A console caller of this role and scope: the reports read nothing else of it. */
const callerOf = (role: ConsoleRole, scope: readonly string[] | null) =>
  ({ account: { role, scope } }) as unknown as ConsoleCaller;

/** The counts of one report's breakdown, by key. */
function countsOf(reports: ConsoleReports, metric: string, by: string): Record<string, number[]> {
  const breakdown = reports.reports
    .find((report) => report.metric === metric)
    ?.breakdowns.find((b) => b.by === by);
  return Object.fromEntries((breakdown?.rows ?? []).map((row) => [row.key, row.counts]));
}

describe.each(STORE_KINDS)('the reports on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "count each day of the period in the viewer's time zone, by group, channel, agent and source",
    async ({ testStore: { store }, expect }) => {
      await aDayOfCodes(store);
      const berlin = await reportsOf(store, { ...PERIOD, timeZone: 'Europe/Berlin', now: NOW });
      expect(berlin).toMatchObject({ ...PERIOD, timeZone: 'Europe/Berlin' });
      expect(berlin.days).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
      expect(countsOf(berlin, 'issued', 'total')).toEqual({ all: [0, 2, 1] });
      expect(countsOf(berlin, 'issued', 'source')).toEqual({
        'self-service': [0, 2, 0],
        'help desk': [0, 0, 1],
      });
      expect(countsOf(berlin, 'issued', 'agent')).toEqual({ 'agent-x': [0, 0, 1] });
      expect(countsOf(berlin, 'issued', 'channel')).toEqual({ screen: [0, 2, 0], sms: [0, 0, 1] });
      expect(countsOf(berlin, 'issued', 'group')).toEqual({ 'group-a': [0, 1, 0], '=group-b': [0, 1, 1] });
      expect(countsOf(berlin, 'expired', 'group')).toEqual({ 'group-a': [0, 1, 0] });
      expect(countsOf(berlin, 'revoked', 'group')).toEqual({ '=group-b': [0, 1, 0] });
      expect(countsOf(berlin, 'used', 'total')).toEqual({ all: [0, 0, 1] });
      expect(countsOf(berlin, 'lockouts', 'group')).toEqual({ 'group-a': [0, 0, 1] });
      expect(countsOf(berlin, 'signinFailures', 'reason')).toEqual({ 'unknown-user': [1, 0, 0] });
      expect(countsOf(berlin, 'delivered', 'provider')).toEqual({ http: [0, 0, 1] });
      expect(countsOf(berlin, 'deliveryFailed', 'channel')).toEqual({ email: [0, 1, 0] });
      // The same entries in UTC: 23:30 is still the 21st.
      const utc = await reportsOf(store, { ...PERIOD, timeZone: 'UTC', now: NOW });
      expect(countsOf(utc, 'issued', 'total')).toEqual({ all: [0, 3, 0] });
    },
  );

  storeTest.concurrent(
    "a scoped auditor's reports count only the members of their groups, and no failure without a user",
    async ({ testStore: { store }, expect }) => {
      await aDayOfCodes(store);
      const scoped = await consoleReports(
        store,
        callerOf('auditor', ['group-a']),
        { ...PERIOD, timeZone: 'UTC' },
        {
          timeZone: 'Europe/Berlin',
          now: NOW,
        },
      );
      expect(countsOf(scoped, 'issued', 'group')).toEqual({ 'group-a': [0, 1, 0] });
      expect(countsOf(scoped, 'revoked', 'total')).toEqual({ all: [0, 0, 0] });
      expect(countsOf(scoped, 'delivered', 'total')).toEqual({ all: [0, 0, 0] });
      expect(countsOf(scoped, 'signinFailures', 'total')).toEqual({ all: [0, 0, 0] });
      // An administrator is never limited, and without a zone asked gets the console's.
      const admin = await consoleReports(store, callerOf('admin', null), PERIOD, {
        timeZone: 'Europe/Berlin',
        now: NOW,
      });
      expect(admin.timeZone).toBe('Europe/Berlin');
      expect(countsOf(admin, 'issued', 'total')).toEqual({ all: [0, 2, 1] });
    },
  );

  storeTest.concurrent(
    'without a period, the 30 days up to today in the time zone',
    async ({ testStore: { store }, expect }) => {
      // 23:30 UTC on the 24th is already the 25th in Berlin.
      const late = Date.UTC(2026, 10, 24, 23, 30);
      const berlin = await reportsOf(store, { timeZone: 'Europe/Berlin', now: late });
      expect([berlin.from, berlin.to, berlin.days.length]).toEqual(['2026-10-27', '2026-11-25', 30]);
      expect((await reportsOf(store, { timeZone: 'UTC', now: late })).to).toBe('2026-11-24');
      expect((await reportsOf(store, { to: '2026-11-10', timeZone: 'UTC', now: late })).from).toBe(
        '2026-10-12',
      );
    },
  );

  storeTest.concurrent(
    'refuse a zone that is none, a period upside down, a date that does not exist, and a period longer than 366 days',
    async ({ testStore: { store }, expect }) => {
      const refusal = (request: Partial<ReportRequest>) =>
        reportsOf(store, { timeZone: 'UTC', now: NOW, ...request }).then(
          () => undefined,
          (error: unknown) => (error instanceof DomainError ? [error.kind, error.params.detail] : error),
        );
      expect(await refusal({ timeZone: 'Mars/Olympus' })).toEqual([
        'invalid',
        'timeZone Mars/Olympus is not an IANA time zone such as Europe/Berlin',
      ]);
      expect(await refusal({ from: '2026-11-22', to: '2026-11-20' })).toEqual([
        'invalid',
        'from must not be after to',
      ]);
      expect(await refusal({ from: '2026-02-30' })).toEqual([
        'invalid',
        'from must be a date such as 2026-11-24',
      ]);
      expect(await refusal({ to: '26-11-20' })).toEqual(['invalid', 'to must be a date such as 2026-11-24']);
      expect(await refusal({ from: '2025-11-20', to: '2026-11-21' })).toEqual([
        'invalid',
        'a report covers at most 366 days; narrow from and to',
      ]);
      const longest = await reportsOf(store, {
        from: '2025-11-21',
        to: '2026-11-21',
        timeZone: 'UTC',
        now: NOW,
      });
      expect(longest.days).toHaveLength(366);
    },
  );

  storeTest.concurrent(
    'as CSV: one line per report, breakdown, key and day, one report when asked, a key a spreadsheet would run defused',
    async ({ testStore: { store }, expect }) => {
      await aDayOfCodes(store);
      const reports = await reportsOf(store, { ...PERIOD, timeZone: 'Europe/Berlin', now: NOW });
      const lines = reportsCsv(reports, 'issued').trimEnd().split('\n');
      expect(lines[0]).toBe('metric,by,key,day,count');
      expect(new Set(lines.slice(1).map((line) => line.split(',')[0]))).toEqual(new Set(['issued']));
      expect(lines).toContain('issued,agent,agent-x,2026-11-22,1');
      expect(lines).toContain("issued,group,'=group-b,2026-11-21,1");
      // Every report, each of its breakdowns' rows, one line a day.
      const rows = reports.reports.flatMap((report) => report.breakdowns.flatMap((b) => b.rows)).length;
      expect(reportsCsv(reports).trimEnd().split('\n')).toHaveLength(1 + rows * 3);
    },
  );
});
