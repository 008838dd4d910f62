import {
  CONSOLE_OIDC_START_PATH,
  type ConsoleSignInOptions,
  type ConsoleSignInRequest,
  type ConsoleSignInResult,
} from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { usePromise } from '../../shared/hooks/use-promise';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { BusyButton } from '../components/busy-button';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';

/** The console's first factor: an account's name and password (never a user of the page). */
export function PasswordStep({
  notice,
  refusal,
  onSignedIn,
}: {
  notice: string | undefined;
  /** Why the identity provider's sign-in was refused, in words. */
  refusal?: string | undefined;
  onSignedIn: (next: ConsoleSignInResult['next']) => void;
}) {
  const { t } = useConsoleI18n();
  // The organisation's identity provider, when the server has one: its button comes first, and
  // the console account below stays the way in when the provider is away.
  const options = usePromise(
    (signal) => consoleCall<ConsoleSignInOptions>('oidc', { signal }).catch(() => undefined),
    [],
  );
  const provider = options.state === 'fulfilled' ? options.value?.provider : undefined;
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState(false);
  const signIn = useConsoleAction();
  const id = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (username.trim() === '' || password === '') {
      setMissing(true);
      return;
    }
    setMissing(false);
    const body: ConsoleSignInRequest = { username: username.trim(), password };
    const answer = await signIn.run(() =>
      consoleCall<ConsoleSignInResult>('session', { method: 'POST', body }),
    );
    if (answer !== undefined) onSignedIn(answer.next);
  };

  return (
    <section className="card sign-in-card" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('signIn.heading')}
      </h1>
      <p>{t('signIn.intro')}</p>
      {notice && (
        <p className="alert alert-info" data-testid="console-notice">
          {notice}
        </p>
      )}
      {refusal && (
        <p className="alert alert-danger" role="alert" data-testid="console-oidc-refused">
          {refusal}
        </p>
      )}
      {provider && (
        <>
          <p>
            <a className="btn btn-primary" href={CONSOLE_OIDC_START_PATH} data-testid="console-oidc-sign-in">
              {t('signIn.withProvider', { provider: provider.name })}
            </a>
          </p>
          <h2 className="sign-in-alternative">{t('signIn.orConsoleAccount')}</h2>
        </>
      )}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div className="form-field">
          <label htmlFor={`${id}-username`}>{t('signIn.username')}</label>
          <input
            id={`${id}-username`}
            name="username"
            autoComplete="username"
            value={username}
            aria-invalid={missing && username.trim() === ''}
            onChange={(event) => setUsername(event.target.value)}
          />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-password`}>{t('signIn.password')}</label>
          <input
            id={`${id}-password`}
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            aria-invalid={missing && password === ''}
            onChange={(event) => setPassword(event.target.value)}
          />
        </div>
        {missing && (
          <p className="alert alert-danger" role="alert">
            {t('signIn.required')}
          </p>
        )}
        <FailureAlert error={signIn.error} />
        <BusyButton
          type="submit"
          busy={signIn.busy}
          busyLabel={t('signIn.signingIn')}
          testId="console-sign-in"
        >
          {t('signIn.submit')}
        </BusyButton>
      </form>
    </section>
  );
}
