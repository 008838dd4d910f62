import {
  SERVICE_KEY_SCOPES,
  type AdminServiceKeyCreate,
  type AdminServiceKeyCreated,
  type AdminServiceKeys,
} from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../shared/components/alert';
import { Spinner } from '../../shared/components/spinner';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { useConsoleLoad } from '../api/use-console-load';
import { BusyButton } from '../components/busy-button';
import { ConsoleTable } from '../components/console-table';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';

type Scope = (typeof SERVICE_KEY_SCOPES)[number];
const SCOPE_TEXT = { verify: 'keys.scopeVerify', scim: 'keys.scopeScim' } as const;

/** Keys of integrators: made here and shown once, listed without secrets, revoked at once. */
export function ServiceKeysSection() {
  const { t, formatTime } = useConsoleI18n();
  const id = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['verify']);
  const [made, setMade] = useState<AdminServiceKeyCreated>();
  const [confirming, setConfirming] = useState<string>();
  const loading = useConsoleLoad(
    (signal) => consoleCall<AdminServiceKeys>('admin/service-keys', { signal }),
    [],
  );
  const keys = loading.value?.keys;
  const { reload } = loading;
  const saving = useConsoleAction();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setMade(undefined);
    const body: AdminServiceKeyCreate = { name: name.trim(), scopes };
    const answer = await saving.run(() =>
      consoleCall<AdminServiceKeyCreated>('admin/service-keys', { method: 'POST', body }),
    );
    if (answer) {
      setMade(answer);
      setName('');
      reload();
    }
  };

  const revoke = async (keyId: string) => {
    setConfirming(undefined);
    const answer = await saving.run(() =>
      consoleCall(`admin/service-keys/${encodeURIComponent(keyId)}/revoke`, { method: 'POST' }),
    );
    if (answer) reload();
  };

  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('admin.serviceKeys')}
      </h1>
      <p>{t('keys.intro')}</p>
      {made && (
        <div className="issued-code" role="status" data-testid="service-key-once">
          <p>{t('keys.shownOnce', { name: made.serviceKey.name })}</p>
          <p className="secret-once" data-testid="service-key-secret">
            {made.key}
          </p>
          <button type="button" className="btn btn-outline" onClick={() => setMade(undefined)}>
            {t('keys.stored')}
          </button>
        </div>
      )}
      <form onSubmit={(event) => void create(event)} noValidate aria-label={t('keys.create')}>
        <h2>{t('keys.create')}</h2>
        <div className="form-field">
          <label htmlFor={`${id}-name`}>{t('keys.name')}</label>
          <p id={`${id}-name-hint`} className="field-hint">
            {t('keys.nameHint')}
          </p>
          <input
            id={`${id}-name`}
            value={name}
            maxLength={100}
            aria-describedby={`${id}-name-hint`}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <fieldset className="form-field">
          <legend>{t('keys.scopes')}</legend>
          {SERVICE_KEY_SCOPES.map((scope) => (
            <label className="choice" key={scope}>
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) =>
                  setScopes(
                    event.target.checked ? [...scopes, scope] : scopes.filter((each) => each !== scope),
                  )
                }
              />
              {t(SCOPE_TEXT[scope])}
            </label>
          ))}
        </fieldset>
        <FailureAlert error={saving.error} />
        <BusyButton type="submit" busy={saving.busy} busyLabel={t('working')} testId="service-key-create">
          {t('keys.createButton')}
        </BusyButton>
      </form>
      <h2>{t('keys.list')}</h2>
      <FailureAlert error={loading.error} />
      {keys === undefined ? (
        loading.busy && <Spinner label={t('loading')} showLabel />
      ) : keys.length === 0 ? (
        <p>{t('keys.none')}</p>
      ) : (
        <ConsoleTable
          label={t('keys.list')}
          columns={[t('keys.name'), t('keys.scopes'), t('keys.created'), t('keys.state')]}
          actions
          testId="service-keys"
        >
          {keys.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>{key.scopes.join(', ')}</td>
              <td>{formatTime(key.createdAt)}</td>
              <td>
                {key.revokedAt ? t('keys.revokedAt', { at: formatTime(key.revokedAt) }) : t('keys.active')}
              </td>
              <td>
                {key.revokedAt === null &&
                  (confirming === key.id ? (
                    <div className="button-row">
                      <button type="button" className="btn btn-danger" onClick={() => void revoke(key.id)}>
                        {t('keys.confirmRevoke', { name: key.name })}
                      </button>
                      <button
                        type="button"
                        className="btn btn-outline"
                        onClick={() => setConfirming(undefined)}
                      >
                        {t('cancel')}
                      </button>
                    </div>
                  ) : (
                    <button
                      type="button"
                      className="btn btn-outline"
                      disabled={saving.busy}
                      onClick={() => setConfirming(key.id)}
                    >
                      {t('keys.revoke')}
                    </button>
                  ))}
              </td>
            </tr>
          ))}
        </ConsoleTable>
      )}
      {keys !== undefined && keys.some((key) => key.revokedAt === null) && (
        <Alert variant="info">{t('keys.revokeHint')}</Alert>
      )}
    </section>
  );
}
