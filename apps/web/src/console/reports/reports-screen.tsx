import {
  type ConsoleReport,
  type ConsoleReportQuery,
  type ConsoleReports,
  type ReportDimensionName,
  type ReportMetricName,
} from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { Spinner } from '../../shared/components/spinner';
import { consoleCall, consoleUrl } from '../api/console-call';
import { useConsoleLoad } from '../api/use-console-load';
import { BusyButton } from '../components/busy-button';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import type { ConsoleTextKey } from '../i18n/console-texts';
import { DayBars, KeyBars } from './bar-chart';

const METRIC_TEXT: Record<ReportMetricName, ConsoleTextKey> = {
  issued: 'reports.metric.issued',
  used: 'reports.metric.used',
  expired: 'reports.metric.expired',
  revoked: 'reports.metric.revoked',
  lockouts: 'reports.metric.lockouts',
  signinFailures: 'reports.metric.signinFailures',
  delivered: 'reports.metric.delivered',
  deliveryFailed: 'reports.metric.deliveryFailed',
};
const BY_TEXT: Record<Exclude<ReportDimensionName, 'total'>, ConsoleTextKey> = {
  group: 'reports.by.group',
  channel: 'reports.by.channel',
  agent: 'reports.by.agent',
  source: 'reports.by.source',
  reason: 'reports.by.reason',
  provider: 'reports.by.provider',
};

/** The viewer's time zone, which the days of the reports follow. */
const viewerTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

interface Period {
  from: string;
  to: string;
}

function queryOf(period: Period, metric?: ReportMetricName): ConsoleReportQuery {
  return {
    timeZone: viewerTimeZone(),
    ...(period.from !== '' && { from: period.from }),
    ...(period.to !== '' && { to: period.to }),
    ...(metric !== undefined && { metric }),
  };
}

/**
 * The reports of a period (default the last 30 days, in the viewer's time zone): for each, a bar
 * per day and its breakdowns, the numbers as tables (read by screen readers, shown on demand) and
 * a CSV download.
 */
export function ReportsScreen() {
  const { t } = useConsoleI18n();
  const id = useId();
  const [draft, setDraft] = useState<Period>({ from: '', to: '' });
  const [applied, setApplied] = useState<Period>(draft);
  const [backwards, setBackwards] = useState(false);
  const load = useConsoleLoad(
    (signal) => consoleCall<ConsoleReports>('reports', { query: queryOf(applied), signal }),
    [applied],
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wrong = draft.from !== '' && draft.to !== '' && draft.to < draft.from;
    setBackwards(wrong);
    if (wrong) return;
    setApplied(draft);
    load.reload();
  };

  const field = (name: keyof Period, label: string) => (
    <div className="form-field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input
        id={`${id}-${name}`}
        type="date"
        value={draft[name]}
        aria-invalid={backwards}
        onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
        data-testid={`reports-${name}`}
      />
    </div>
  );

  const reports = load.value;
  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('reports.title')}
      </h1>
      <form className="filter-form" onSubmit={submit} noValidate aria-label={t('reports.period')}>
        {field('from', t('reports.from'))}
        {field('to', t('reports.to'))}
        <div className="filter-actions">
          <BusyButton type="submit" busy={load.busy} busyLabel={t('loading')} testId="reports-apply">
            {t('reports.apply')}
          </BusyButton>
          <a
            className="btn btn-outline"
            href={consoleUrl('reports.csv', queryOf(applied))}
            download
            data-testid="reports-csv"
          >
            {t('reports.csvAll')}
          </a>
        </div>
      </form>
      {backwards && (
        <p className="alert alert-danger" role="alert">
          {t('reports.rangeBackwards')}
        </p>
      )}
      <FailureAlert error={load.error} />
      {reports === undefined ? (
        load.busy && <Spinner label={t('loading')} showLabel />
      ) : (
        <>
          <p className="muted" data-testid="reports-period">
            {t('reports.periodSummary', { from: reports.from, to: reports.to, timeZone: reports.timeZone })}
          </p>
          <div className="report-grid">
            {reports.reports.map((report) => (
              <ReportCard key={report.metric} report={report} reports={reports} period={applied} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}

function ReportCard({
  report,
  reports,
  period,
}: {
  report: ConsoleReport;
  reports: ConsoleReports;
  period: Period;
}) {
  const { t } = useConsoleI18n();
  const id = useId();
  const [shown, setShown] = useState(false);
  const name = t(METRIC_TEXT[report.metric]);
  const counts = report.breakdowns.find((breakdown) => breakdown.by === 'total')?.rows[0]?.counts ?? [];
  const total = counts.reduce((sum, n) => sum + n, 0);
  const max = Math.max(0, ...counts);
  const days = reports.days.map((day, index) => ({ label: day, value: counts[index] ?? 0 }));
  const breakdowns = report.breakdowns.filter(
    (breakdown): breakdown is typeof breakdown & { by: Exclude<ReportDimensionName, 'total'> } =>
      breakdown.by !== 'total' && breakdown.rows.length > 0,
  );
  return (
    <section className="report-card" aria-labelledby={`${id}-title`} data-testid={`report-${report.metric}`}>
      <h2 id={`${id}-title`}>{name}</h2>
      <p className="report-total">{t('reports.total', { count: total })}</p>
      <DayBars
        bars={days}
        label={t('reports.chartLabel', { report: name, from: reports.from, to: reports.to, total, max })}
      />
      {breakdowns.map((breakdown) => (
        <KeyBars
          key={breakdown.by}
          label={t('reports.breakdownLabel', { report: name, by: t(BY_TEXT[breakdown.by]) })}
          bars={breakdown.rows.map((row) => ({ label: row.key, value: row.total }))}
        />
      ))}
      <div className="button-row">
        <button
          type="button"
          className="btn btn-outline btn-sm"
          aria-expanded={shown}
          aria-controls={`${id}-numbers`}
          onClick={() => setShown(!shown)}
          data-testid={`report-numbers-${report.metric}`}
        >
          {shown ? t('reports.hideNumbers') : t('reports.showNumbers')}
        </button>
        <a
          className="btn btn-outline btn-sm"
          href={consoleUrl('reports.csv', queryOf(period, report.metric))}
          download
          data-testid={`report-csv-${report.metric}`}
        >
          {t('reports.csv', { report: name })}
        </a>
      </div>
      {/* Always read by screen readers; shown to everyone on demand. */}
      <div id={`${id}-numbers`} className={shown ? 'report-numbers' : 'report-numbers visually-hidden'}>
        <table className="console-table">
          <caption>{t('reports.perDay', { report: name })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('reports.day')}</th>
              <th scope="col">{t('reports.count')}</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.label}>
                <th scope="row">{day.label}</th>
                <td>{day.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {breakdowns.map((breakdown) => (
          <table className="console-table" key={breakdown.by}>
            <caption>{t('reports.breakdownLabel', { report: name, by: t(BY_TEXT[breakdown.by]) })}</caption>
            <thead>
              <tr>
                <th scope="col">{t(BY_TEXT[breakdown.by])}</th>
                <th scope="col">{t('reports.count')}</th>
              </tr>
            </thead>
            <tbody>
              {breakdown.rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">
                    <bdi>{row.key}</bdi>
                  </th>
                  <td>{row.total}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      </div>
    </section>
  );
}
