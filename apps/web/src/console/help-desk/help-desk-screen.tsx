import type { HelpDeskSearchResult } from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { BusyButton } from '../components/busy-button';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { hrefOf } from '../shell/console-route';
import { HelpDeskUserView } from './help-desk-user-view';

/** Find the user who calls, then help them (the user's own view is at #/helpdesk/user/<id>). */
export function HelpDeskScreen({ userId }: { userId: string | undefined }) {
  if (userId !== undefined) return <HelpDeskUserView userId={userId} />;
  return <UserSearch />;
}

function UserSearch() {
  const { t } = useConsoleI18n();
  const id = useId();
  const [query, setQuery] = useState('');
  const [tooShort, setTooShort] = useState(false);
  const [found, setFound] = useState<HelpDeskSearchResult['users']>();
  const search = useConsoleAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const q = query.trim();
    setTooShort(q.length < 2);
    if (q.length < 2) return;
    const answer = await search.run(() =>
      consoleCall<HelpDeskSearchResult>('helpdesk/users', { query: { q } }),
    );
    if (answer !== undefined) setFound(answer.users);
  };

  return (
    <section className="card console-card" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('helpdesk.title')}
      </h1>
      <form className="inline-form" onSubmit={(event) => void submit(event)} role="search" noValidate>
        <div className="form-field">
          <label htmlFor={`${id}-q`}>{t('helpdesk.search')}</label>
          <p id={`${id}-hint`} className="field-hint">
            {t('helpdesk.searchHint')}
          </p>
          <input
            id={`${id}-q`}
            type="search"
            value={query}
            aria-describedby={`${id}-hint`}
            aria-invalid={tooShort}
            onChange={(event) => setQuery(event.target.value)}
            data-testid="helpdesk-query"
          />
        </div>
        <BusyButton
          type="submit"
          busy={search.busy}
          busyLabel={t('helpdesk.searching')}
          testId="helpdesk-search"
        >
          {t('helpdesk.searchButton')}
        </BusyButton>
      </form>
      {tooShort && (
        <p className="alert alert-danger" role="alert">
          {t('helpdesk.searchTooShort')}
        </p>
      )}
      <FailureAlert error={search.error} />
      {found !== undefined && (
        <div aria-live="polite">
          <p>{t('helpdesk.found', { count: found.length })}</p>
          {found.length > 0 && (
            <ul className="result-list" data-testid="helpdesk-results">
              {found.map((user) => (
                <li key={user.id}>
                  <a href={hrefOf('helpdesk', 'user', user.id)}>
                    <span className="result-name">{user.fullName || user.username}</span>{' '}
                    <span className="muted">
                      {user.username}
                      {user.groups.length > 0 && ` · ${user.groups.join(', ')}`}
                      {user.disabled && ` · ${t('helpdesk.disabled')}`}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
