import Type from 'typebox';

const strict = { additionalProperties: false } as const;

/** What the reports count, in the order the dashboard shows them. */
export const REPORT_METRICS = [
  'issued',
  'used',
  'expired',
  'revoked',
  'lockouts',
  'signinFailures',
  'delivered',
  'deliveryFailed',
] as const;
export type ReportMetricName = (typeof REPORT_METRICS)[number];
/** How a report's counts are broken down; `total` has the one row `all`. */
export const REPORT_DIMENSIONS = [
  'total',
  'group',
  'channel',
  'agent',
  'source',
  'reason',
  'provider',
] as const;
export type ReportDimensionName = (typeof REPORT_DIMENSIONS)[number];
/** The longest period one request covers. */
export const REPORT_MAX_DAYS = 366;

const Metric = Type.Union([
  Type.Literal('issued'),
  Type.Literal('used'),
  Type.Literal('expired'),
  Type.Literal('revoked'),
  Type.Literal('lockouts'),
  Type.Literal('signinFailures'),
  Type.Literal('delivered'),
  Type.Literal('deliveryFailed'),
]);
const Dimension = Type.Union([
  Type.Literal('total'),
  Type.Literal('group'),
  Type.Literal('channel'),
  Type.Literal('agent'),
  Type.Literal('source'),
  Type.Literal('reason'),
  Type.Literal('provider'),
]);

const DATE = { pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } as const;

// Reports (roles admin and auditor; after the passkey)
export const ConsoleReportQuery = Type.Object(
  {
    from: Type.Optional(
      Type.String({ ...DATE, description: 'The first day (YYYY-MM-DD); 29 days before to' }),
    ),
    to: Type.Optional(Type.String({ ...DATE, description: 'The last day, included; today when not given' })),
    timeZone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "The viewer's IANA time zone; DEA_TIME_ZONE",
      }),
    ),
    metric: Type.Optional(Metric),
  },
  strict,
);
export type ConsoleReportQuery = Type.Static<typeof ConsoleReportQuery>;

export const ConsoleReportRow = Type.Object({
  key: Type.String(),
  /** One count per day of the period. */
  counts: Type.Array(Type.Integer()),
  total: Type.Integer(),
});
export type ConsoleReportRow = Type.Static<typeof ConsoleReportRow>;
export const ConsoleReportBreakdown = Type.Object({
  by: Dimension,
  rows: Type.Array(ConsoleReportRow),
});
export type ConsoleReportBreakdown = Type.Static<typeof ConsoleReportBreakdown>;
export const ConsoleReport = Type.Object({
  metric: Metric,
  breakdowns: Type.Array(ConsoleReportBreakdown),
});
export type ConsoleReport = Type.Static<typeof ConsoleReport>;
export const ConsoleReports = Type.Object({
  from: Type.String(),
  to: Type.String(),
  timeZone: Type.String(),
  /** The period's days (YYYY-MM-DD, in its time zone). */
  days: Type.Array(Type.String()),
  reports: Type.Array(ConsoleReport),
});
export type ConsoleReports = Type.Static<typeof ConsoleReports>;

/** The audit events the server knows, for the audit screen's filter. */
export const ConsoleAuditEvents = Type.Object({
  events: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
});
export type ConsoleAuditEvents = Type.Static<typeof ConsoleAuditEvents>;
