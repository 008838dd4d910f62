import type {
  AdminPasswordLink,
  AdminPeople,
  AdminPerson,
  AdminPersonCreate,
  AdminPersonUpdate,
} from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { Spinner } from '../../shared/components/spinner';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { useConsoleLoad } from '../api/use-console-load';
import { BusyButton } from '../components/busy-button';
import { ConsoleTable } from '../components/console-table';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { hrefOf } from '../shell/console-route';
import { ConsoleAccountsSection } from './console-accounts-section';
import { PersonChannelsSection } from './person-channels-section';

const SOURCE_TEXT = {
  local: 'source.local',
  ldap: 'source.ldap',
  scim: 'source.scim',
  import: 'source.import',
} as const;
type Source = keyof typeof SOURCE_TEXT;
const sourceKey = (source: string) => SOURCE_TEXT[(source in SOURCE_TEXT ? source : 'local') as Source];

/** People: an administrator finds, adds and administers users. */
export function PeopleScreen({ userId }: { userId: string | undefined }) {
  return userId === undefined ? (
    <>
      <PeopleList />
      <ConsoleAccountsSection />
    </>
  ) : (
    <PersonView userId={userId} />
  );
}

function PeopleList() {
  const { t } = useConsoleI18n();
  const id = useId();
  const [query, setQuery] = useState('');
  const [asked, setAsked] = useState('');
  const [username, setUsername] = useState('');
  const [fullName, setFullName] = useState('');
  const loading = useConsoleLoad(
    (signal) => consoleCall<AdminPeople>(`admin/people?q=${encodeURIComponent(asked)}`, { signal }),
    [asked],
  );
  const adding = useConsoleAction();
  const users = loading.value?.users;

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const body: AdminPersonCreate = { username: username.trim(), fullName: fullName.trim() };
    const answer = await adding.run(() =>
      consoleCall<{ id: string }>('admin/people', { method: 'POST', body }),
    );
    if (answer) window.location.hash = hrefOf('people', answer.id);
  };

  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('people.title')}
      </h1>
      <form
        role="search"
        aria-label={t('people.search')}
        onSubmit={(event) => {
          event.preventDefault();
          setAsked(query.trim());
        }}
      >
        <div className="form-field">
          <label htmlFor={`${id}-q`}>{t('people.search')}</label>
          <input
            id={`${id}-q`}
            type="search"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
        </div>
        <button type="submit" className="btn btn-primary">
          {t('people.searchButton')}
        </button>
      </form>
      <FailureAlert error={loading.error} />
      {users === undefined ? (
        loading.busy && <Spinner label={t('loading')} showLabel />
      ) : users.length === 0 ? (
        <p>{t('people.none')}</p>
      ) : (
        <ConsoleTable
          label={t('people.title')}
          columns={[t('people.username'), t('people.fullName'), t('people.source'), t('people.state')]}
          testId="people"
        >
          {users.map((user) => (
            <tr key={user.id}>
              <td>
                <a href={hrefOf('people', user.id)}>{user.username}</a>
              </td>
              <td>{user.fullName}</td>
              <td>{t(sourceKey(user.source))}</td>
              <td>{user.disabled ? t('people.disabled') : t('people.enabled')}</td>
            </tr>
          ))}
        </ConsoleTable>
      )}
      <form onSubmit={(event) => void add(event)} noValidate aria-label={t('people.add')}>
        <h2>{t('people.add')}</h2>
        <div className="form-field">
          <label htmlFor={`${id}-username`}>{t('people.username')}</label>
          <input
            id={`${id}-username`}
            value={username}
            autoCapitalize="none"
            spellCheck={false}
            onChange={(event) => setUsername(event.target.value)}
          />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-full-name`}>{t('people.fullName')}</label>
          <input
            id={`${id}-full-name`}
            value={fullName}
            onChange={(event) => setFullName(event.target.value)}
          />
        </div>
        <FailureAlert error={adding.error} />
        <BusyButton type="submit" busy={adding.busy} busyLabel={t('working')} testId="person-add">
          {t('people.addButton')}
        </BusyButton>
      </form>
    </section>
  );
}

function PersonView({ userId }: { userId: string }) {
  const { t, formatTime } = useConsoleI18n();
  const id = useId();
  const loading = useConsoleLoad(
    (signal) => consoleCall<AdminPerson>(`admin/people/${encodeURIComponent(userId)}`, { signal }),
    [userId],
  );
  const person = loading.value;
  const acting = useConsoleAction();
  const [link, setLink] = useState<AdminPasswordLink>();
  const [done, setDone] = useState<string>();
  const [confirmingRemoval, setConfirmingRemoval] = useState(false);
  const path = (action: string) => `admin/people/${encodeURIComponent(userId)}${action}`;

  const act = async (action: string, doneText: string) => {
    setDone(undefined);
    const answer = await acting.run(() => consoleCall(path(action), { method: 'POST' }));
    if (answer !== undefined) {
      setDone(doneText);
      loading.reload();
    }
  };
  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (person === undefined) return;
    const data = new FormData(event.currentTarget);
    const text = (name: string) => {
      const value = data.get(name);
      return typeof value === 'string' ? value.trim() : '';
    };
    const body: AdminPersonUpdate = {
      ...(person.editable.fullName && { fullName: text('fullName') }),
      // A user without a language keeps none while the field is left empty.
      ...(person.editable.locale &&
        (person.locale !== null || text('locale') !== '') && { locale: text('locale') }),
      ...(person.editable.timeZone && { timeZone: text('timeZone') === '' ? null : text('timeZone') }),
    };
    setDone(undefined);
    const answer = await acting.run(() => consoleCall(path(''), { method: 'POST', body }));
    if (answer !== undefined) {
      setDone(t('people.saved'));
      loading.reload();
    }
  };
  const passwordLink = async () => {
    setDone(undefined);
    const answer = await acting.run(() =>
      consoleCall<AdminPasswordLink>(path('/password-link'), { method: 'POST' }),
    );
    if (answer) setLink(answer);
  };
  const remove = async () => {
    setConfirmingRemoval(false);
    const answer = await acting.run(() => consoleCall(path('/remove'), { method: 'POST' }));
    if (answer !== undefined) window.location.hash = hrefOf('people');
  };
  const membership = async (groupId: string, member: boolean) => {
    setDone(undefined);
    const answer = await acting.run(() =>
      consoleCall(path('/groups'), { method: 'POST', body: { groupId, member } }),
    );
    if (answer !== undefined) loading.reload();
  };

  if (person === undefined)
    return (
      <section className="card console-card console-wide" aria-label={t('people.title')}>
        <FailureAlert error={loading.error} />
        {loading.busy && <Spinner label={t('loading')} showLabel />}
      </section>
    );
  const owner = t(sourceKey(person.source));
  const readOnly = (editable: boolean) =>
    editable ? undefined : { readOnly: true, 'aria-describedby': `${id}-owned` };
  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <p>
        <a href={hrefOf('people')}>{t('people.back')}</a>
      </p>
      <h1 id={`${id}-title`} className="card-title">
        {person.fullName} ({person.username})
      </h1>
      <p data-testid="person-state">
        {t('people.source')}: {owner} · {person.disabled ? t('people.disabled') : t('people.enabled')}
        {person.lastLoginAt !== null &&
          ` · ${t('people.lastSignIn', { at: formatTime(person.lastLoginAt) })}`}
      </p>
      {done && (
        <p role="status" data-testid="person-done">
          {done}
        </p>
      )}
      <FailureAlert error={acting.error} />
      <form onSubmit={(event) => void save(event)} noValidate aria-label={t('people.edit')}>
        <h2>{t('people.edit')}</h2>
        {!(person.editable.fullName && person.editable.locale && person.editable.timeZone) && (
          <p id={`${id}-owned`} className="field-hint">
            {t('people.ownedBy', { source: owner })}
          </p>
        )}
        <div className="form-field">
          <label htmlFor={`${id}-fn`}>{t('people.fullName')}</label>
          <input
            id={`${id}-fn`}
            name="fullName"
            defaultValue={person.fullName}
            {...readOnly(person.editable.fullName)}
          />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-locale`}>{t('people.locale')}</label>
          <input
            id={`${id}-locale`}
            name="locale"
            defaultValue={person.locale ?? ''}
            autoCapitalize="none"
            {...readOnly(person.editable.locale)}
          />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-tz`}>{t('people.timeZone')}</label>
          <input
            id={`${id}-tz`}
            name="timeZone"
            defaultValue={person.timeZone ?? ''}
            autoCapitalize="none"
            {...readOnly(person.editable.timeZone)}
          />
        </div>
        {(person.editable.fullName || person.editable.locale || person.editable.timeZone) && (
          <BusyButton type="submit" busy={acting.busy} busyLabel={t('working')} testId="person-save">
            {t('people.save')}
          </BusyButton>
        )}
      </form>
      <h2>{t('people.actions')}</h2>
      <div className="button-row">
        {person.editable.disabled &&
          (person.disabled ? (
            <button
              type="button"
              className="btn btn-outline"
              onClick={() => void act('/enable', t('people.enabledNow'))}
            >
              {t('people.enable')}
            </button>
          ) : (
            <button
              type="button"
              className="btn btn-outline"
              onClick={() => void act('/disable', t('people.disabledNow'))}
            >
              {t('people.disable')}
            </button>
          ))}
        {person.editable.sessions && (
          <button
            type="button"
            className="btn btn-outline"
            onClick={() => void act('/sessions/end', t('people.sessionsEnded'))}
          >
            {t('people.endSessions')}
          </button>
        )}
        {person.editable.password && (
          <button type="button" className="btn btn-outline" onClick={() => void passwordLink()}>
            {t('people.passwordLink')}
          </button>
        )}
        {person.editable.removal &&
          (confirmingRemoval ? (
            <>
              <button type="button" className="btn btn-danger" onClick={() => void remove()}>
                {t('people.confirmRemove', { name: person.username })}
              </button>
              <button type="button" className="btn btn-outline" onClick={() => setConfirmingRemoval(false)}>
                {t('cancel')}
              </button>
            </>
          ) : (
            <button type="button" className="btn btn-outline" onClick={() => setConfirmingRemoval(true)}>
              {t('people.remove')}
            </button>
          ))}
      </div>
      {link && (
        <div className="issued-code" role="status" data-testid="password-link">
          <p>{t('people.passwordLinkShown', { name: person.username, until: formatTime(link.expiresAt) })}</p>
          <p className="secret-once" data-testid="password-link-url">
            {link.url}
          </p>
        </div>
      )}
      <h2>{t('people.groups')}</h2>
      <ConsoleTable
        label={t('people.groups')}
        columns={[t('people.group'), t('people.member')]}
        testId="person-groups"
      >
        {person.groups.map((group) => (
          <tr key={group.id}>
            <td>{group.name}</td>
            <td>
              <label className="choice">
                <input
                  type="checkbox"
                  checked={group.member}
                  disabled={group.owner !== 'local' || acting.busy}
                  onChange={(event) => void membership(group.id, event.target.checked)}
                />
                {group.owner === 'local'
                  ? t('people.member')
                  : t('people.ownedBy', { source: t(sourceKey(group.owner)) })}
              </label>
            </td>
          </tr>
        ))}
      </ConsoleTable>
      <PersonChannelsSection person={person} onChanged={loading.reload} />
    </section>
  );
}
