import type { RegistrationWaysResult } from '@dea/contract';
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { failureMessage } from '../api/failure-message';
import { Alert } from '../shared/components/alert';
import { ProgressBar } from '../shared/components/progress-bar';
import { useI18n } from '../shared/i18n/i18n-context';
import { resolveMessage, type PageMessage } from '../shared/i18n/page-message';
import { channelKeyLabel, localTime } from './channel-labels';
import { OIDC_START_PATH, openRegistration, sendRegistrationChallenge } from './channels-api';

export interface SignInChoicesProps {
  ways: RegistrationWaysResult;
  locale: string | undefined;
  /** The identity provider sent the person back without a session (#signin=refused). */
  providerRefused: boolean;
  /** A registration session is open: the page shows the channels. */
  onOpened: () => void;
  /**
   * Further ways to confirm (the person's own passkey): each an item of the list of choices,
   * between the code to a proven channel and the identity provider.
   */
  moreWays?: ReactNode;
}

type Challenge = { challengeId: string; to: string; expiresAt: string };

/**
 * Without a registration session: why a password is not enough, and the strong sign-ins the server
 * allows (domain/registration/registration-sign-in.ts): a code to a proven channel, the organisation's identity
 * provider when DEA_OIDC_* is set, or a registration link from the help desk.
 */
export function SignInChoices({ ways, locale, providerRefused, onOpened, moreWays }: SignInChoicesProps) {
  const { t, language } = useI18n();
  const ids = { heading: useId(), byCode: useId(), code: useId(), byProvider: useId(), byLink: useId() };
  const [reference, setReference] = useState(ways.channels[0]?.reference);
  const [challenge, setChallenge] = useState<Challenge>();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ message: PageMessage; attempt: number }>();
  const codeRef = useRef<HTMLInputElement>(null);
  const attempts = useRef(0);
  // The code's field takes the focus once the code is on its way.
  useEffect(() => {
    if (challenge !== undefined) codeRef.current?.focus();
  }, [challenge]);

  const fail = (error: unknown) => {
    attempts.current += 1;
    const message = failureMessage(error);
    if (message !== undefined) setProblem({ message, attempt: attempts.current });
  };

  function onSend(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || reference === undefined) return;
    setBusy(true);
    setProblem(undefined);
    sendRegistrationChallenge(reference, locale)
      .then(setChallenge, fail)
      .finally(() => setBusy(false));
  }

  function onConfirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || challenge === undefined) return;
    setBusy(true);
    setProblem(undefined);
    openRegistration({ challengeId: challenge.challengeId, code: codeRef.current?.value ?? '' })
      .then(onOpened, (error: unknown) => {
        if (codeRef.current) codeRef.current.value = '';
        fail(error);
      })
      .finally(() => setBusy(false));
  }

  return (
    <section className="card channels-card" aria-labelledby={ids.heading}>
      <h1 id={ids.heading} className="card-title">
        {t('channels.signIn.heading')}
      </h1>
      <p data-testid="password-not-enough">{t('channels.signIn.why')}</p>
      {providerRefused && (
        <Alert variant="danger" announce testId="provider-refused">
          {t('channels.signIn.providerRefused')}
        </Alert>
      )}
      {busy && <ProgressBar label={t('channels.working')} />}
      {problem && (
        <Alert key={problem.attempt} variant="danger" announce testId="sign-in-problem">
          {resolveMessage(problem.message, t)}
        </Alert>
      )}
      <ul className="sign-in-ways">
        <li data-testid="way-code">
          <h2 id={ids.byCode}>{t('channels.signIn.byCode')}</h2>
          {ways.channels.length === 0 ? (
            <p>{t('channels.signIn.noChannel')}</p>
          ) : challenge === undefined ? (
            <form onSubmit={onSend} aria-labelledby={ids.byCode}>
              <fieldset className="channel-choices">
                <legend className="visually-hidden">{t('channels.signIn.byCode')}</legend>
                {ways.channels.map((channel) => (
                  <label key={channel.reference} className="channel-choice">
                    <input
                      type="radio"
                      name="reference"
                      value={channel.reference}
                      checked={reference === channel.reference}
                      onChange={() => setReference(channel.reference)}
                    />{' '}
                    <span dir="ltr">{channel.to}</span> ({channelKeyLabel(channel.key, t)})
                  </label>
                ))}
              </fieldset>
              <button type="submit" className="btn btn-primary" aria-disabled={busy || undefined}>
                {t('channels.signIn.sendCode')}
              </button>
            </form>
          ) : (
            <form onSubmit={onConfirm} aria-labelledby={ids.byCode}>
              <p role="status" data-testid="challenge-sent">
                {t('channels.signIn.codeSent', {
                  recipient: challenge.to,
                  time: localTime(challenge.expiresAt, language),
                })}
              </p>
              <div className="form-field">
                <label htmlFor={ids.code}>{t('channels.code')}</label>
                <input
                  ref={codeRef}
                  id={ids.code}
                  name="code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  dir="ltr"
                  readOnly={busy}
                />
              </div>
              <div className="form-actions">
                <button type="submit" className="btn btn-primary" aria-disabled={busy || undefined}>
                  {t('channels.confirm')}
                </button>
                <button type="button" className="btn btn-outline" onClick={() => setChallenge(undefined)}>
                  {t('cancel')}
                </button>
              </div>
            </form>
          )}
        </li>
        {/* The person's own passkey comes here, as one more item of this list. */}
        {moreWays}
        {ways.oidc && (
          <li data-testid="way-provider">
            <h2 id={ids.byProvider}>{t('channels.signIn.byProvider')}</h2>
            <a className="btn btn-primary" href={OIDC_START_PATH}>
              {t('channels.signIn.provider')}
            </a>
          </li>
        )}
        <li data-testid="way-link">
          <h2 id={ids.byLink}>{t('channels.signIn.byLink')}</h2>
          <p>{t('channels.signIn.linkHint')}</p>
        </li>
      </ul>
    </section>
  );
}
