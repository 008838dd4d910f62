import { REPORT_METRICS, type ReportMetricName } from '@dea/contract';
import { DomainError } from '../domain/errors.js';
import { reportsCsv, reportsOf } from '../domain/reports/reports.js';
import { type CommandGroup, noMoreArguments, optionText, UsageError } from './command.js';

/**
 * `dea report [--from DATE] [--to DATE] [--time-zone ZONE] [--group NAME]... [--metric M] [--csv|--json]`:
 * the console's reports (domain/reports/reports.ts, the same rule and the same counts), for a script.
 */
export const reportCommand: CommandGroup = {
  name: 'report',
  summary: 'codes issued, used, expired and revoked, lockouts, sign-in failures and deliveries per day',
  commands: {},
  alone: {
    summary:
      'count per day over a period (default the last 30 days, in DEA_TIME_ZONE): the totals, or every breakdown with --csv or --json',
    usage:
      '[--from YYYY-MM-DD] [--to YYYY-MM-DD] [--time-zone ZONE] [--group NAME]... [--metric METRIC] [--csv|--json]',
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'time-zone': { type: 'string' },
      group: { type: 'string', multiple: true },
      metric: { type: 'string' },
      csv: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    async run(values, positionals, context) {
      noMoreArguments(positionals, 0);
      const metric = optionText(values, 'metric');
      if (metric !== undefined && !(REPORT_METRICS as readonly string[]).includes(metric))
        throw new UsageError(`--metric ${metric} is not one of ${REPORT_METRICS.join(', ')}`);
      const groups = Array.isArray(values.group) ? values.group.map(String) : undefined;
      const from = optionText(values, 'from');
      const to = optionText(values, 'to');
      const { store } = await context.open();
      let reports;
      try {
        reports = await reportsOf(store, {
          ...(from !== undefined && { from }),
          ...(to !== undefined && { to }),
          timeZone: optionText(values, 'time-zone') ?? context.config.timeZone,
          now: context.now(),
          ...(groups !== undefined && { userInGroups: groups }),
        });
      } catch (error) {
        if (error instanceof DomainError && typeof error.params.detail === 'string')
          throw new UsageError(
            error.params.detail.replace(
              /^(from|to|timeZone)\b/,
              (name) => `--${name === 'timeZone' ? 'time-zone' : name}`,
            ),
          );
        throw error;
      }
      const chosen = metric as ReportMetricName | undefined;
      if (values.csv === true) {
        context.out(reportsCsv(reports, chosen).trimEnd());
        return 0;
      }
      if (values.json === true) {
        context.out(JSON.stringify(reports, null, 2));
        return 0;
      }
      context.out(`${reports.from} to ${reports.to} (${reports.timeZone}), ${reports.days.length} days:`);
      for (const report of reports.reports) {
        if (chosen !== undefined && report.metric !== chosen) continue;
        const total = report.breakdowns.find((breakdown) => breakdown.by === 'total')?.rows[0]?.total ?? 0;
        const parts = report.breakdowns
          .filter((breakdown) => breakdown.by !== 'total' && breakdown.rows.length > 0)
          .map(
            (breakdown) =>
              `${breakdown.by}: ${breakdown.rows.map((row) => `${row.key} ${row.total}`).join(', ')}`,
          );
        context.out(`  ${report.metric} ${total}${parts.length === 0 ? '' : `  (${parts.join('; ')})`}`);
      }
      return 0;
    },
  },
};
