import { useId, useState, type FormEvent } from 'react';
import { failureMessage } from '../../api/failure-message';
import { Alert } from '../../shared/components/alert';
import { useLatestValue, usePromise } from '../../shared/hooks/use-promise';
import { useI18n } from '../../shared/i18n/i18n-context';
import type { Translate } from '../../shared/i18n/translator';
import { addPasskey, listPasskeys, removePasskey, renamePasskey } from './passkey-calls';
import { usePasskeyAction } from './use-passkey-action';

/**
 * The person's own passkeys inside a registration session: listed with when each was
 * added and last used, added under a name (the browser's dialog), renamed and removed. The
 * server refuses all of it without the session; its message is shown as it comes.
 */
export function PasskeyList() {
  const { t, language } = useI18n();
  const locale = language.replace('_', '-');
  const id = useId();
  const [version, setVersion] = useState(0);
  const loaded = usePromise((signal) => listPasskeys(signal), [version]);
  // While a change reloads the list, the one shown before stays.
  const passkeys = useLatestValue(loaded);
  const action = usePasskeyAction(t);
  const [name, setName] = useState(t('channels.passkeys.defaultName'));
  const [editing, setEditing] = useState<{ id: string; name: string } | undefined>(undefined);
  const reload = () => setVersion((current) => current + 1);
  const date = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (action.busy || name.trim() === '') return;
    if ((await action.run(() => addPasskey(name.trim()))) === undefined) return;
    setName(t('channels.passkeys.defaultName'));
    reload();
  };
  const rename = async (event: FormEvent) => {
    event.preventDefault();
    if (action.busy || editing === undefined || editing.name.trim() === '') return;
    const { id: passkeyId, name: newName } = editing;
    if ((await action.run(async () => renamePasskey(passkeyId, newName.trim()).then(() => true))) === true) {
      setEditing(undefined);
      reload();
    }
  };
  const remove = async (passkeyId: string) => {
    if (action.busy) return;
    if ((await action.run(async () => removePasskey(passkeyId).then(() => true))) === true) reload();
  };

  const loadFailure = loaded.state === 'rejected' ? failureMessage(loaded.error) : undefined;
  return (
    <section className="passkey-list" aria-labelledby={`${id}-heading`} data-testid="passkey-list">
      <h2 id={`${id}-heading`}>{t('channels.passkeys.heading')}</h2>
      <p>{t('channels.passkeys.intro')}</p>
      {loadFailure !== undefined && (
        <Alert variant="danger" announce testId="passkey-load-error">
          {'serverText' in loadFailure ? loadFailure.serverText : t('channels.passkeys.failed')}
        </Alert>
      )}
      {action.error !== undefined && (
        <Alert variant="danger" announce testId="passkey-error">
          {action.error}
        </Alert>
      )}
      {passkeys !== undefined && passkeys.length === 0 && <p>{t('channels.passkeys.none')}</p>}
      {passkeys !== undefined && passkeys.length > 0 && (
        <ul className="list-unstyled">
          {passkeys.map((passkey) => (
            <li key={passkey.id} data-testid="passkey">
              {editing?.id === passkey.id ? (
                <RenameForm
                  t={t}
                  name={editing.name}
                  label={t('channels.passkeys.renameLabel', { name: passkey.name })}
                  onChange={(value) => setEditing({ id: passkey.id, name: value })}
                  onSubmit={(event) => void rename(event)}
                  onCancel={() => setEditing(undefined)}
                  busy={action.busy}
                />
              ) : (
                <>
                  <strong>{passkey.name}</strong>{' '}
                  <span>{t('channels.passkeys.addedOn', { date: date(passkey.createdAt) })}</span>
                  {' · '}
                  <span>
                    {passkey.lastUsedAt === null
                      ? t('channels.passkeys.neverUsed')
                      : t('channels.passkeys.lastUsed', { date: date(passkey.lastUsedAt) })}
                  </span>
                  <div className="button-row">
                    <button
                      type="button"
                      className="btn btn-outline"
                      aria-label={t('channels.passkeys.renameLabel', { name: passkey.name })}
                      onClick={() => setEditing({ id: passkey.id, name: passkey.name })}
                    >
                      {t('channels.passkeys.rename')}
                    </button>
                    <button
                      type="button"
                      className="btn btn-outline"
                      aria-label={t('channels.passkeys.removeLabel', { name: passkey.name })}
                      aria-disabled={action.busy || undefined}
                      onClick={() => void remove(passkey.id)}
                    >
                      {t('channels.passkeys.remove')}
                    </button>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(event) => void add(event)} aria-label={t('channels.passkeys.add')}>
        <label htmlFor={`${id}-name`}>{t('channels.passkeys.nameLabel')}</label>
        <input
          id={`${id}-name`}
          className="form-control"
          value={name}
          maxLength={64}
          required
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" className="btn btn-primary" aria-disabled={action.busy || undefined}>
          {action.busy ? t('channels.passkeys.waiting') : t('channels.passkeys.add')}
        </button>
      </form>
    </section>
  );
}

function RenameForm({
  t,
  name,
  label,
  onChange,
  onSubmit,
  onCancel,
  busy,
}: {
  t: Translate;
  name: string;
  label: string;
  onChange: (value: string) => void;
  onSubmit: (event: FormEvent) => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const id = useId();
  return (
    <form onSubmit={onSubmit} aria-label={label}>
      <label htmlFor={id}>{t('channels.passkeys.nameLabel')}</label>
      <input
        id={id}
        className="form-control"
        value={name}
        maxLength={64}
        required
        onChange={(event) => onChange(event.target.value)}
      />
      <div className="button-row">
        <button type="submit" className="btn btn-primary" aria-disabled={busy || undefined}>
          {t('channels.passkeys.save')}
        </button>
        <button type="button" className="btn btn-outline" onClick={onCancel}>
          {t('channels.passkeys.cancel')}
        </button>
      </div>
    </form>
  );
}
