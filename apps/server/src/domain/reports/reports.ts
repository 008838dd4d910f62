import {
  type ConsoleReport,
  type ConsoleReportQuery,
  type ConsoleReports,
  REPORT_MAX_DAYS,
  REPORT_METRICS,
  type ReportDimensionName,
  type ReportMetricName,
} from '@dea/contract';
import { stringify } from 'csv-stringify/sync';
import type { OffsetSpan, ReportCount, Store } from '../../store/store.js';
import { invalidRequest } from '../errors.js';
import { safeCell } from '../audit/audit-view.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import { auditScopeOf } from '../console/console-scope.js';
import { isTimeZone } from '../identity/time-zone.js';

/**
 * The reports: per local day of a period, codes issued, used, expired and
 * taken out of use, verification lockouts, sign-in failures and deliveries, each broken down by
 * what it can be. The store counts them with GROUP BY (store/sql/reports.ts); this module chooses
 * the period in the viewer's time zone, and both the console's route and `dea report` call it.
 */

const DAY_MS = 86_400_000;
/** The period when none is asked for: today and the 29 days before it. */
export const REPORT_DEFAULT_DAYS = 30;

/** What each report is broken down by, in the order shown. */
export const REPORT_BREAKDOWNS: Record<ReportMetricName, readonly ReportDimensionName[]> = {
  issued: ['total', 'group', 'channel', 'agent', 'source'],
  used: ['total', 'group', 'channel'],
  expired: ['total', 'group', 'channel'],
  revoked: ['total', 'group', 'channel'],
  lockouts: ['total', 'group'],
  signinFailures: ['total', 'reason'],
  delivered: ['total', 'provider', 'channel'],
  deliveryFailed: ['total', 'provider', 'channel'],
};

export interface ReportRequest {
  /** YYYY-MM-DD, in the time zone; default: REPORT_DEFAULT_DAYS days up to `to`. */
  from?: string;
  /** YYYY-MM-DD, included; default: today in the time zone. */
  to?: string;
  timeZone: string;
  now: number;
  /** Only members of these groups (a scoped auditor's). */
  userInGroups?: readonly string[];
}

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The zone's offset from UTC at a time, in milliseconds (positive east of Greenwich). */
export function offsetAt(timeZone: string, at: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatOf(timeZone).formatToParts(at))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const local = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return local - Math.floor(at / 1000) * 1000;
}

/** Days since 1970-01-01 of a YYYY-MM-DD date. */
function dayNumber(date: string, name: string): number {
  const [year, month, day] = date.split('-').map(Number);
  const at = Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1);
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== date)
    throw invalidRequest(`${name} must be a date such as 2026-11-24`);
  return at / DAY_MS;
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** When the local day begins in the zone (its midnight, as a UTC time). */
export function startOfDay(timeZone: string, day: number): number {
  const wall = day * DAY_MS;
  const guess = wall - offsetAt(timeZone, wall);
  return wall - offsetAt(timeZone, guess);
}

/** The stretches of [from, to) in which the zone keeps one offset (a change of offset found to the millisecond). */
export function offsetSpans(timeZone: string, dayStarts: readonly number[]): OffsetSpan[] {
  const first = dayStarts[0];
  if (first === undefined) return [];
  const spans: OffsetSpan[] = [{ from: first, offsetMs: offsetAt(timeZone, first) }];
  for (let index = 0; index + 1 < dayStarts.length; index += 1) {
    const current = spans.at(-1)?.offsetMs;
    let low = dayStarts[index] ?? first;
    let high = (dayStarts[index + 1] ?? low) - 1;
    const after = offsetAt(timeZone, high);
    if (after === current) continue;
    // The first time of the day with the new offset.
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(timeZone, middle) === after) high = middle;
      else low = middle;
    }
    spans.push({ from: high, offsetMs: after });
  }
  return spans;
}

/** Every report of the period, counted by the store; the rule the console and `dea report` share. */
export async function reportsOf(store: Store, request: ReportRequest): Promise<ConsoleReports> {
  const { timeZone, now } = request;
  if (!isTimeZone(timeZone))
    throw invalidRequest(`timeZone ${timeZone} is not an IANA time zone such as Europe/Berlin`);
  const today = Math.floor((now + offsetAt(timeZone, now)) / DAY_MS);
  const last = request.to === undefined ? today : dayNumber(request.to, 'to');
  const first =
    request.from === undefined ? last - (REPORT_DEFAULT_DAYS - 1) : dayNumber(request.from, 'from');
  if (first > last) throw invalidRequest('from must not be after to');
  if (last - first + 1 > REPORT_MAX_DAYS)
    throw invalidRequest(`a report covers at most ${REPORT_MAX_DAYS} days; narrow from and to`);
  const dayStarts = Array.from({ length: last - first + 2 }, (_, index) =>
    startOfDay(timeZone, first + index),
  );
  const counts = await store.reports.counts({
    from: dayStarts[0] ?? 0,
    to: dayStarts.at(-1) ?? 0,
    spans: offsetSpans(timeZone, dayStarts),
    now,
    ...(request.userInGroups !== undefined && { userInGroups: request.userInGroups }),
  });
  const days = last - first + 1;
  return {
    from: dateOf(first),
    to: dateOf(last),
    timeZone,
    days: Array.from({ length: days }, (_, index) => dateOf(first + index)),
    reports: REPORT_METRICS.map((metric) => reportOf(metric, counts, first, days)),
  };
}

function reportOf(
  metric: ReportMetricName,
  counts: readonly ReportCount[],
  first: number,
  days: number,
): ConsoleReport {
  return {
    metric,
    breakdowns: REPORT_BREAKDOWNS[metric].map((by) => {
      const rows = new Map<string, number[]>();
      if (by === 'total') rows.set('all', new Array<number>(days).fill(0));
      for (const count of counts) {
        if (count.metric !== metric || count.by !== by) continue;
        const index = count.day - first;
        if (index < 0 || index >= days) continue;
        let row = rows.get(count.key);
        if (row === undefined) {
          row = new Array<number>(days).fill(0);
          rows.set(count.key, row);
        }
        row[index] = (row[index] ?? 0) + count.count;
      }
      return {
        by,
        rows: [...rows]
          .map(([key, values]) => ({ key, counts: values, total: values.reduce((sum, n) => sum + n, 0) }))
          .sort((a, b) => b.total - a.total || a.key.localeCompare(b.key)),
      };
    }),
  };
}

const CSV_COLUMNS = ['metric', 'by', 'key', 'day', 'count'] as const;

/** The reports as CSV, one line per report, breakdown, key and day (a spreadsheet pivots it). */
export function reportsCsv(reports: ConsoleReports, metric?: ReportMetricName): string {
  const lines: string[][] = [];
  for (const report of reports.reports) {
    if (metric !== undefined && report.metric !== metric) continue;
    for (const breakdown of report.breakdowns)
      for (const row of breakdown.rows)
        row.counts.forEach((count, index) =>
          lines.push([
            report.metric,
            breakdown.by,
            safeCell(row.key),
            reports.days[index] ?? '',
            String(count),
          ]),
        );
  }
  return stringify(lines, { header: true, columns: [...CSV_COLUMNS] });
}

/** The console's reports: administrators and auditors past their passkey; a scoped auditor's groups alone. */
export async function consoleReports(
  store: Store,
  caller: ConsoleCaller,
  query: ConsoleReportQuery,
  defaults: { timeZone: string; now: number },
): Promise<ConsoleReports> {
  return reportsOf(store, {
    ...(query.from !== undefined && { from: query.from }),
    ...(query.to !== undefined && { to: query.to }),
    timeZone: query.timeZone ?? defaults.timeZone,
    now: defaults.now,
    ...auditScopeOf(caller.account),
  });
}
