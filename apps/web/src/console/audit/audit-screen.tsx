import type { ConsoleAuditEntry, ConsoleAuditEvents, ConsoleAuditPage } from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { Spinner } from '../../shared/components/spinner';
import { consoleCall, consoleUrl } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { useConsoleLoad } from '../api/use-console-load';
import { BusyButton } from '../components/busy-button';
import { ConsoleTable } from '../components/console-table';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { auditQueryOf, NO_FILTERS, rangeIsBackwards, type AuditFilters } from './audit-filters';

const PAGE_SIZE = '50';

const pageQuery = (filters: AuditFilters, cursor: string | null) => ({
  ...auditQueryOf(filters),
  limit: PAGE_SIZE,
  cursor: cursor ?? undefined,
});

/**
 * The audit log, newest first: filters by event, user, actor and time; older entries a page at a
 * time; the same filters as a CSV download.
 */
export function AuditScreen() {
  const { t, formatTime } = useConsoleI18n();
  const id = useId();
  const [draft, setDraft] = useState<AuditFilters>(NO_FILTERS);
  const [applied, setApplied] = useState<AuditFilters>(NO_FILTERS);
  const [backwards, setBackwards] = useState(false);
  const first = useConsoleLoad(
    (signal) => consoleCall<ConsoleAuditPage>('audit', { query: pageQuery(applied, null), signal }),
    [applied],
  );
  // Older pages, each fetched on request, belong to the first page they follow.
  const [older, setOlder] = useState<{ after: ConsoleAuditPage; pages: ConsoleAuditPage[] }>();
  const olderPages = first.value !== undefined && older?.after === first.value ? older.pages : [];
  const entries: ConsoleAuditEntry[] | undefined = first.value && [
    ...first.value.entries,
    ...olderPages.flatMap((page) => page.entries),
  ];
  const next = (olderPages.at(-1) ?? first.value)?.next ?? null;
  const paging = useConsoleAction();
  // The events the server knows (domain/audit/audit-events.ts), for the filter; asked once.
  const events = useConsoleLoad((signal) => consoleCall<ConsoleAuditEvents>('audit/events', { signal }), []);

  const loadOlder = async (cursor: string) => {
    const shown = first.value;
    const page = await paging.run(() =>
      consoleCall<ConsoleAuditPage>('audit', { query: pageQuery(applied, cursor) }),
    );
    if (page === undefined || shown === undefined) return;
    setOlder((now) => ({ after: shown, pages: [...(now?.after === shown ? now.pages : []), page] }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wrong = rangeIsBackwards(draft);
    setBackwards(wrong);
    if (wrong) return;
    setApplied(draft);
    first.reload();
  };

  const field = (name: keyof AuditFilters, label: string, type = 'text') => (
    <div className="form-field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input
        id={`${id}-${name}`}
        type={type}
        value={draft[name]}
        aria-invalid={backwards && (name === 'since' || name === 'until')}
        onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
        data-testid={`audit-${name}`}
      />
    </div>
  );

  const csvQuery = auditQueryOf(applied);
  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('audit.title')}
      </h1>
      <form className="filter-form" onSubmit={submit} noValidate aria-label={t('audit.filters')}>
        <div className="form-field">
          <label htmlFor={`${id}-event`}>{t('audit.event')}</label>
          <select
            id={`${id}-event`}
            value={draft.event}
            onChange={(event) => setDraft({ ...draft, event: event.target.value })}
            data-testid="audit-event"
          >
            <option value="">{t('audit.anyEvent')}</option>
            {events.value?.events.map((known) => (
              <option key={known.name} value={known.name} title={known.description}>
                {known.name}
              </option>
            ))}
          </select>
        </div>
        {field('username', t('audit.user'))}
        {field('actor', t('audit.actor'))}
        {field('since', t('audit.since'), 'datetime-local')}
        {field('until', t('audit.until'), 'datetime-local')}
        <div className="filter-actions">
          <BusyButton type="submit" busy={first.busy} busyLabel={t('loading')} testId="audit-apply">
            {t('audit.apply')}
          </BusyButton>
          <a
            className="btn btn-outline"
            href={consoleUrl('audit.csv', csvQuery)}
            download
            data-testid="audit-csv"
          >
            {t('audit.csv')}
          </a>
        </div>
      </form>
      {backwards && (
        <p className="alert alert-danger" role="alert">
          {t('audit.rangeBackwards')}
        </p>
      )}
      <FailureAlert error={first.error ?? paging.error} />
      {entries === undefined ? (
        first.busy && <Spinner label={t('loading')} showLabel />
      ) : entries.length === 0 ? (
        <p role="status">{t('audit.empty')}</p>
      ) : (
        <ConsoleTable
          label={t('audit.title')}
          columns={[
            t('audit.at'),
            t('audit.event'),
            t('audit.user'),
            t('audit.actor'),
            t('audit.address'),
            t('audit.details'),
          ]}
          caption={t('audit.caption', { count: entries.length })}
          testId="audit-table"
        >
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>
                <time dateTime={entry.at}>{formatTime(entry.at)}</time>
              </td>
              <td>
                <code>{entry.event}</code>
              </td>
              <td>{entry.username ?? ''}</td>
              <td>{entry.actor ?? ''}</td>
              <td>
                <bdi>{entry.clientAddress ?? ''}</bdi>
              </td>
              <td className="details">
                <EntryDetails details={entry.details} />
              </td>
            </tr>
          ))}
        </ConsoleTable>
      )}
      {next !== null && entries !== undefined && (
        <BusyButton
          variant="outline"
          busy={paging.busy}
          busyLabel={t('loading')}
          onClick={() => void loadOlder(next)}
          testId="audit-older"
        >
          {t('audit.older')}
        </BusyButton>
      )}
    </section>
  );
}

/** An entry's details as labelled fields: each name, and its value in words (a list, or JSON for what nests deeper). */
function EntryDetails({ details }: { details: Record<string, unknown> }) {
  const fields = Object.entries(details);
  if (fields.length === 0) return null;
  return (
    <dl className="facts audit-details">
      {fields.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            <bdi>{detailText(value)}</bdi>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function detailText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    return value.map((item) => String(item)).join(', ');
  return JSON.stringify(value);
}
