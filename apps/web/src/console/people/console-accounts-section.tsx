import type {
  AdminConsoleAccount,
  AdminConsoleAccountCreate,
  AdminConsoleAccounts,
  AdminEnrolmentLink,
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
import { registerPasskey } from '../sign-in/passkey-ceremony';

const ROLES = ['admin', 'helpdesk', 'auditor'] as const;
type Role = (typeof ROLES)[number];
const ACCOUNT_SOURCE = {
  local: 'accounts.sourceLocal',
  provider: 'accounts.sourceProvider',
  directory: 'accounts.sourceDirectory',
} as const;
const scopeOf = (text: string) => {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length === 0 ? null : names;
};

/**
 * Console accounts: add one (its enrolment link shown once), change a local
 * account's role and scope, disable and enable, name and remove passkeys (never the last), replace
 * a lost one, and add a passkey to one's own account.
 */
export function ConsoleAccountsSection() {
  const { t, formatTime } = useConsoleI18n();
  const id = useId();
  const loading = useConsoleLoad(
    (signal) => consoleCall<AdminConsoleAccounts>('admin/console-accounts', { signal }),
    [],
  );
  const { reload } = loading;
  const acting = useConsoleAction();
  const [link, setLink] = useState<{ username: string; url: string }>();
  const [done, setDone] = useState<string>();
  const accounts = loading.value?.accounts;

  const act = async (path: string, body?: unknown, doneText?: string) => {
    setDone(undefined);
    const answer = await acting.run(() =>
      consoleCall<unknown>(`admin/console-accounts/${path}`, {
        method: 'POST',
        ...(body !== undefined && { body }),
      }),
    );
    if (answer !== undefined) {
      if (doneText) setDone(doneText);
      reload();
    }
    return answer;
  };
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => {
      const value = data.get(name);
      return typeof value === 'string' ? value.trim() : '';
    };
    const role = text('role') as Role;
    const body: AdminConsoleAccountCreate = {
      username: text('username'),
      ...(text('displayName') !== '' && { displayName: text('displayName') }),
      role,
      scope: role === 'admin' ? null : scopeOf(text('scope')),
      password: (() => {
        const value = data.get('password');
        return typeof value === 'string' ? value : '';
      })(),
    };
    setDone(undefined);
    const answer = await acting.run(() =>
      consoleCall<AdminEnrolmentLink>('admin/console-accounts', { method: 'POST', body }),
    );
    if (answer) {
      setLink({ username: body.username, url: answer.url });
      form.reset();
      reload();
    }
  };
  const reset = async (account: AdminConsoleAccount) => {
    const answer = (await act(`${encodeURIComponent(account.id)}/passkeys/reset`)) as
      | AdminEnrolmentLink
      | undefined;
    if (answer) setLink({ username: account.username, url: answer.url });
  };
  const addOwnPasskey = async () => {
    setDone(undefined);
    const answer = await acting.run(async () => {
      await registerPasskey();
      return true;
    });
    if (answer) {
      setDone(t('accounts.passkeyAdded'));
      reload();
    }
  };

  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('accounts.title')}
      </h1>
      {done && (
        <p role="status" data-testid="accounts-done">
          {done}
        </p>
      )}
      <FailureAlert error={acting.error} />
      {link && (
        <div className="issued-code" role="status" data-testid="enrolment-link">
          <p>{t('accounts.linkShown', { name: link.username })}</p>
          <p className="secret-once" data-testid="enrolment-link-url">
            {link.url}
          </p>
        </div>
      )}
      <button
        type="button"
        className="btn btn-outline"
        onClick={() => void addOwnPasskey()}
        data-testid="add-own-passkey"
      >
        {t('accounts.addOwnPasskey')}
      </button>
      <FailureAlert error={loading.error} />
      {accounts === undefined ? (
        loading.busy && <Spinner label={t('loading')} showLabel />
      ) : (
        <ConsoleTable
          label={t('accounts.title')}
          columns={[t('accounts.account'), t('accounts.role'), t('accounts.signsIn'), t('accounts.passkeys')]}
          actions
          testId="console-accounts"
        >
          {accounts.map((account) => (
            <AccountRow
              key={account.id}
              account={account}
              busy={acting.busy}
              act={act}
              onReset={() => void reset(account)}
              lastSignIn={
                account.lastSignInAt === null ? t('accounts.never') : formatTime(account.lastSignInAt)
              }
            />
          ))}
        </ConsoleTable>
      )}
      <form onSubmit={(event) => void add(event)} noValidate aria-label={t('accounts.add')}>
        <h2>{t('accounts.add')}</h2>
        <div className="form-field">
          <label htmlFor={`${id}-username`}>{t('accounts.username')}</label>
          <input id={`${id}-username`} name="username" autoCapitalize="none" spellCheck={false} />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-display`}>{t('accounts.displayName')}</label>
          <input id={`${id}-display`} name="displayName" />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-role`}>{t('accounts.role')}</label>
          <select id={`${id}-role`} name="role" defaultValue="helpdesk">
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {t(`role.${role}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-scope`}>{t('accounts.scope')}</label>
          <p id={`${id}-scope-hint`} className="field-hint">
            {t('accounts.scopeHint')}
          </p>
          <input id={`${id}-scope`} name="scope" aria-describedby={`${id}-scope-hint`} />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-password`}>{t('accounts.password')}</label>
          <input id={`${id}-password`} name="password" type="password" autoComplete="new-password" />
        </div>
        <BusyButton type="submit" busy={acting.busy} busyLabel={t('working')} testId="account-add">
          {t('accounts.addButton')}
        </BusyButton>
      </form>
    </section>
  );
}

function AccountRow({
  account,
  busy,
  act,
  onReset,
  lastSignIn,
}: {
  account: AdminConsoleAccount;
  busy: boolean;
  act: (path: string, body?: unknown, doneText?: string) => Promise<unknown>;
  onReset: () => void;
  lastSignIn: string;
}) {
  const { t } = useConsoleI18n();
  const id = useId();
  const path = (rest: string) => `${encodeURIComponent(account.id)}/${rest}`;
  const source = ACCOUNT_SOURCE[account.source as keyof typeof ACCOUNT_SOURCE] ?? ACCOUNT_SOURCE.local;
  const changeRole = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const chosen = data.get('role');
    const role = (typeof chosen === 'string' ? chosen : 'helpdesk') as Role;
    const scopeText = data.get('scope');
    void act(
      path('role'),
      {
        role,
        scope: role === 'admin' || typeof scopeText !== 'string' ? null : scopeOf(scopeText),
      },
      t('accounts.saved'),
    );
  };
  return (
    <tr>
      <td>
        {account.displayName} ({account.username}){account.disabled && ` · ${t('accounts.disabled')}`}
      </td>
      <td>
        {account.source === 'local' ? (
          <form onSubmit={changeRole} aria-label={t('accounts.changeRole', { name: account.username })}>
            <label htmlFor={`${id}-role`}>{t('accounts.role')}</label>
            <select id={`${id}-role`} name="role" defaultValue={account.role}>
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {t(`role.${role}`)}
                </option>
              ))}
            </select>
            <label htmlFor={`${id}-scope`}>{t('accounts.scope')}</label>
            <input id={`${id}-scope`} name="scope" defaultValue={account.scope?.join(', ') ?? ''} />
            <button type="submit" className="btn btn-outline" disabled={busy}>
              {t('accounts.save')}
            </button>
          </form>
        ) : (
          <>
            {t(`role.${account.role as Role}`)}
            {account.scope !== null && ` (${account.scope.join(', ')})`}
          </>
        )}
      </td>
      <td>
        {t(source)} · {lastSignIn}
      </td>
      <td>
        <ul className="plain-list">
          {account.passkeys.map((passkey, index) => (
            <li key={passkey.credentialId}>
              <form
                aria-label={t('accounts.passkeyNamed', { number: index + 1, name: account.username })}
                onSubmit={(event) => {
                  event.preventDefault();
                  const name = new FormData(event.currentTarget).get('name');
                  void act(
                    path('passkeys/name'),
                    {
                      credentialId: passkey.credentialId,
                      name: typeof name === 'string' ? name : '',
                    },
                    t('accounts.saved'),
                  );
                }}
              >
                <label htmlFor={`${id}-pk-${index}`}>
                  {t('accounts.passkeyName', { number: index + 1 })}
                </label>
                <input
                  id={`${id}-pk-${index}`}
                  name="name"
                  defaultValue={passkey.name ?? ''}
                  maxLength={64}
                />
                <button type="submit" className="btn btn-outline" disabled={busy}>
                  {t('accounts.save')}
                </button>
                {account.passkeys.length > 1 && (
                  <button
                    type="button"
                    className="btn btn-outline"
                    disabled={busy}
                    onClick={() => void act(path('passkeys/remove'), { credentialId: passkey.credentialId })}
                  >
                    {t('accounts.removePasskey', { number: index + 1 })}
                  </button>
                )}
              </form>
            </li>
          ))}
        </ul>
      </td>
      <td>
        <div className="button-row">
          {account.disabled ? (
            <button
              type="button"
              className="btn btn-outline"
              disabled={busy}
              onClick={() => void act(path('enable'))}
            >
              {t('accounts.enable', { name: account.username })}
            </button>
          ) : (
            <button
              type="button"
              className="btn btn-outline"
              disabled={busy}
              onClick={() => void act(path('disable'))}
            >
              {t('accounts.disable', { name: account.username })}
            </button>
          )}
          {account.source === 'local' && (
            <button type="button" className="btn btn-outline" disabled={busy} onClick={onReset}>
              {t('accounts.replacePasskeys', { name: account.username })}
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}
