import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.js';

/** What the reports count (domain/reports/reports.ts names them to people). */
export type ReportMetric =
  | 'issued'
  | 'used'
  | 'expired'
  | 'revoked'
  | 'lockouts'
  | 'signinFailures'
  | 'delivered'
  | 'deliveryFailed';

/** How a count is broken down; `total` has the one key `all`. */
export type ReportDimension = 'total' | 'group' | 'channel' | 'agent' | 'source' | 'reason' | 'provider';

/**
 * A stretch of the period in which the viewer's time zone keeps one offset from UTC: a time `at`
 * in it falls on the local day `floor((at + offsetMs) / 86,400,000)` (days since 1970-01-01).
 */
export interface OffsetSpan {
  /** The first time of the span; the first span starts at the period's start. */
  from: number;
  offsetMs: number;
}

export interface ReportPeriod {
  /** Inclusive; both the starts of local days. */
  from: number;
  /** Exclusive. */
  to: number;
  /** In order, the first starting at `from`. */
  spans: readonly OffsetSpan[];
  /** Codes expire only up to this time. */
  now: number;
  /** Only members of these groups (a scoped auditor's), and only these groups in the breakdown. */
  userInGroups?: readonly string[];
}

export interface ReportCount {
  /** The local day, as days since 1970-01-01. */
  day: number;
  metric: ReportMetric;
  by: ReportDimension;
  key: string;
  count: number;
}

export interface ReportRepository {
  /** Every count of the period by day, each computed by the store with GROUP BY. */
  counts(period: ReportPeriod): Promise<ReportCount[]>;
}

const DAY_MS = 86_400_000;
const BY_GROUP_EVENTS = ['code.issued', 'code.used', 'code.verify_lockout'] as const;
const METRIC_OF_EVENT: Record<string, ReportMetric> = {
  'code.issued': 'issued',
  'code.used': 'used',
  'code.verify_lockout': 'lockouts',
  'signin.failed': 'signinFailures',
  'code.sent': 'delivered',
  'code.delivery_failed': 'deliveryFailed',
};

/** The local day of a time column, by the spans' offsets (whole numbers written in the statement). */
function dayOf(column: RawBuilder<unknown>, spans: readonly OffsetSpan[]): RawBuilder<number> {
  const whole = (value: number) => sql.raw(String(Math.trunc(value)));
  const day = (span: OffsetSpan) => sql`(${column} + ${whole(span.offsetMs)}) / ${whole(DAY_MS)}`;
  const last = spans.at(-1);
  if (last === undefined) throw new Error('a report period has at least one span');
  if (spans.length === 1) return sql<number>`${day(last)}`;
  const branches = spans
    .slice(0, -1)
    .map((span, index) => sql`when ${column} < ${whole(spans[index + 1]?.from ?? 0)} then ${day(span)}`);
  return sql<number>`case ${sql.join(branches, sql` `)} else ${day(last)} end`;
}

const list = (values: readonly string[]) => sql.join(values.map((value) => sql.lit(value)));

/**
 * The reports' counts, from the audit trail (codes issued, uses, lockouts, sign-in failures,
 * deliveries) and from the codes (expired, taken out of use): four statements, each a range of an
 * index that holds what it groups by (migration 0026: the channel, provider and reason of an
 * entry's details are generated columns), so no row is read beside the index and the rows answered
 * are a few per day.
 */
export function reportRepository(db: Db): ReportRepository {
  return {
    async counts(period) {
      const { from, to, spans, userInGroups } = period;
      if (userInGroups !== undefined && userInGroups.length === 0) return [];
      const scopeNames = userInGroups === undefined ? undefined : sql.join([...userInGroups]);
      const inScope = (column: RawBuilder<unknown>) =>
        scopeNames === undefined
          ? sql``
          : sql`and ${column} in (select sg.user_id from user_groups sg join groups sn on sn.id = sg.group_id where sn.name in (${scopeNames}))`;
      const groupInScope =
        scopeNames === undefined
          ? sql``
          : sql`and ug.group_id in (select sn.id from groups sn where sn.name in (${scopeNames}))`;
      const atDay = dayOf(sql.ref('a.at'), spans);
      const expiry = sql.ref('c.expires_at');
      const invalidated = sql.ref('c.invalidated_at');
      const expiredUntil = Math.min(to, period.now);

      // One statement per kind of entry, each grouping by only what that kind is counted by: a
      // single statement grouping every entry by all five breakdowns (as CASE expressions) made
      // SQLite sort each of the period's entries by seven keys, twice the time of these.
      const auditRange = sql`a.at >= ${from} and a.at < ${to} ${inScope(sql.ref('a.user_id'))}`;
      const audit = sql<{
        day: number | string;
        event: string;
        source: string | null;
        agent: string | null;
        channel: string | null;
        provider: string | null;
        reason: string | null;
        n: number | string;
      }>`select ${atDay} as day, a.event as event,
  case when a.actor = a.user_id then 'self-service'
    when substr(a.actor, 1, 8) = 'console:' then 'help desk'
    when a.actor = 'cli' then 'cli'
    when substr(a.actor, 1, 12) = 'service-key:' then 'api'
    else 'other' end as source,
  case when substr(a.actor, 1, 8) = 'console:' then substr(a.actor, 9) end as agent,
  a.report_channel as channel, null as provider, null as reason, count(*) as n
from audit_log a where a.event = 'code.issued' and ${auditRange}
group by 1, 2, 3, 4, 5
union all
select ${atDay}, a.event, null, null, a.report_channel, null, null, count(*)
from audit_log a where a.event = 'code.used' and ${auditRange}
group by 1, 2, 5
union all
select ${atDay}, a.event, null, null, a.report_channel, a.report_provider, null, count(*)
from audit_log a where a.event in ('code.sent', 'code.delivery_failed') and ${auditRange}
group by 1, 2, 5, 6
union all
select ${atDay}, a.event, null, null, null, null, a.report_reason, count(*)
from audit_log a where a.event = 'signin.failed' and ${auditRange}
group by 1, 2, 7
union all
select ${atDay}, a.event, null, null, null, null, null, count(*)
from audit_log a where a.event = 'code.verify_lockout' and ${auditRange}
group by 1, 2`;

      // Counted by group id from the membership index alone; the groups are named after counting.
      const auditByGroup = sql<{ day: number | string; event: string; name: string; n: number | string }>`
select t.day as day, t.event as event, g.name as name, t.n as n from (
  select ${atDay} as day, a.event as event, ug.group_id as group_id, count(*) as n
  from audit_log a
  join user_groups ug on ug.user_id = a.user_id
  where a.event in (${list(BY_GROUP_EVENTS)}) and a.at >= ${from} and a.at < ${to} ${groupInScope}
  group by 1, 2, 3
) t join groups g on g.id = t.group_id`;

      const codeChannel = sql`coalesce(c.channel_type, 'screen')`;
      const codes = sql<{ day: number | string; metric: string; channel: string; n: number | string }>`
select ${dayOf(expiry, spans)} as day, 'expired' as metric, ${codeChannel} as channel, count(*) as n
from codes c
where c.expires_at >= ${from} and c.expires_at < ${expiredUntil}
  and c.invalidated_at is null and c.uses_left > 0 ${inScope(sql.ref('c.user_id'))}
group by 1, 2, 3
union all
select ${dayOf(invalidated, spans)} as day, 'revoked' as metric, ${codeChannel} as channel, count(*) as n
from codes c
where c.invalidated_at >= ${from} and c.invalidated_at < ${to} ${inScope(sql.ref('c.user_id'))}
group by 1, 2, 3`;

      const codesByGroup = sql<{ day: number | string; metric: string; name: string; n: number | string }>`
select t.day as day, t.metric as metric, g.name as name, t.n as n from (
  select ${dayOf(expiry, spans)} as day, 'expired' as metric, ug.group_id as group_id, count(*) as n
  from codes c
  join user_groups ug on ug.user_id = c.user_id
  where c.expires_at >= ${from} and c.expires_at < ${expiredUntil}
    and c.invalidated_at is null and c.uses_left > 0 ${groupInScope}
  group by 1, 2, 3
  union all
  select ${dayOf(invalidated, spans)} as day, 'revoked' as metric, ug.group_id as group_id, count(*) as n
  from codes c
  join user_groups ug on ug.user_id = c.user_id
  where c.invalidated_at >= ${from} and c.invalidated_at < ${to} ${groupInScope}
  group by 1, 2, 3
) t join groups g on g.id = t.group_id`;

      const [auditRows, auditGroupRows, codeRows, codeGroupRows] = await Promise.all([
        audit.execute(db),
        auditByGroup.execute(db),
        codes.execute(db),
        codesByGroup.execute(db),
      ]);

      const sums = new Map<string, ReportCount>();
      const add = (
        day: number | string,
        metric: ReportMetric,
        by: ReportDimension,
        key: string,
        n: number,
      ) => {
        const id = `${day}\u0000${metric}\u0000${by}\u0000${key}`;
        const held = sums.get(id);
        if (held === undefined) sums.set(id, { day: Number(day), metric, by, key, count: n });
        else held.count += n;
      };
      for (const row of auditRows.rows) {
        const metric = METRIC_OF_EVENT[row.event];
        if (metric === undefined) continue;
        const n = Number(row.n);
        add(row.day, metric, 'total', 'all', n);
        if (row.channel !== null) add(row.day, metric, 'channel', row.channel, n);
        if (row.source !== null) add(row.day, metric, 'source', row.source, n);
        if (row.agent !== null) add(row.day, metric, 'agent', row.agent, n);
        if (row.provider !== null) add(row.day, metric, 'provider', row.provider, n);
        if (row.reason !== null) add(row.day, metric, 'reason', row.reason, n);
      }
      for (const row of auditGroupRows.rows) {
        const metric = METRIC_OF_EVENT[row.event];
        if (metric !== undefined) add(row.day, metric, 'group', row.name, Number(row.n));
      }
      for (const row of codeRows.rows) {
        const metric = row.metric as ReportMetric;
        add(row.day, metric, 'total', 'all', Number(row.n));
        add(row.day, metric, 'channel', row.channel, Number(row.n));
      }
      for (const row of codeGroupRows.rows)
        add(row.day, row.metric as ReportMetric, 'group', row.name, Number(row.n));
      return [...sums.values()];
    },
  };
}
