import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@dea/contract';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { EnvelopeError } from '../../api/api-error';
import { failureMessage } from '../../api/failure-message';
import { setPasswordByLink } from '../../api/methods';
import { Alert } from '../../shared/components/alert';
import { useI18n } from '../../shared/i18n/i18n-context';
import { resolveMessage, type PageMessage } from '../../shared/i18n/page-message';

/** The rule of a new password (the contract's), counted as the server counts it: characters, not UTF-16 units. */
const PASSWORD_MIN = PASSWORD_MIN_LENGTH;

type State =
  | { phase: 'editing' }
  | { phase: 'too-short'; attempt: number }
  | { phase: 'saving' }
  | { phase: 'refused'; message: PageMessage; attempt: number }
  | { phase: 'saved' };

export interface PasswordLinkFormProps {
  /** The token of the link (after #reset=), already taken out of the address. */
  token: string;
  /** Where the sign-in form is, offered once the password is set. */
  signInHref: string;
}

/**
 * The login application's form behind a one-time password link: one new password, checked for its
 * length here and by the server, sent once; the server's refusal (a link used, expired or not
 * whole) is shown as it says it, in the visitor's language. The field is uncontrolled, like the
 * sign-in form's, so branding CSS cannot read it through an attribute.
 */
export function PasswordLinkForm({ token, signInHref }: PasswordLinkFormProps) {
  const { t } = useI18n();
  const ids = { heading: useId(), password: useId(), hint: useId(), problem: useId() };
  const [state, setState] = useState<State>({ phase: 'editing' });
  const attempts = useRef(0);
  const passwordRef = useRef<HTMLInputElement>(null);
  const problemRef = useRef<HTMLDivElement>(null);
  const doneRef = useRef<HTMLDivElement>(null);

  useEffect(() => passwordRef.current?.focus(), []);
  useEffect(() => {
    if (state.phase === 'too-short') passwordRef.current?.focus();
    if (state.phase === 'refused') problemRef.current?.focus();
    if (state.phase === 'saved') doneRef.current?.focus();
  }, [state]);

  const busy = state.phase === 'saving' || state.phase === 'saved';

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    attempts.current += 1;
    const attempt = attempts.current;
    const password = passwordRef.current?.value ?? '';
    if ([...password].length < PASSWORD_MIN) {
      setState({ phase: 'too-short', attempt });
      return;
    }
    setState({ phase: 'saving' });
    setPasswordByLink(token, password).then(
      () => setState({ phase: 'saved' }),
      (error: unknown) => {
        if (!(error instanceof EnvelopeError)) console.error('Setting the password failed', error);
        if (passwordRef.current) passwordRef.current.value = '';
        setState({ phase: 'refused', message: failureMessage(error) ?? { key: 'error.generic' }, attempt });
      },
    );
  }

  const tooShort = state.phase === 'too-short';
  return (
    <section className="card sign-in-card" aria-labelledby={ids.heading}>
      <h1 id={ids.heading} className="card-title">
        {t('passwordLink.heading')}
      </h1>
      {tooShort && (
        <Alert
          key={state.attempt}
          variant="danger"
          announce
          id={ids.problem}
          testId="password-link-too-short"
        >
          {t('passwordLink.tooShort')}
        </Alert>
      )}
      {state.phase === 'refused' && (
        <Alert
          key={state.attempt}
          variant="danger"
          announce
          focusable
          id={ids.problem}
          ref={problemRef}
          testId="password-link-refused"
        >
          {resolveMessage(state.message, t)}
        </Alert>
      )}
      {state.phase === 'saved' ? (
        <Alert variant="success" announce focusable ref={doneRef} testId="password-link-saved">
          {t('passwordLink.saved')} <a href={signInHref}>{t('login.submit')}</a>
        </Alert>
      ) : (
        <form
          className="sign-in-form"
          method="post"
          noValidate
          onSubmit={onSubmit}
          aria-labelledby={ids.heading}
        >
          <div className="form-field">
            <label htmlFor={ids.password}>{t('passwordLink.newPassword')}</label>
            <input
              ref={passwordRef}
              id={ids.password}
              name="password"
              type="password"
              autoComplete="new-password"
              required
              minLength={PASSWORD_MIN}
              maxLength={PASSWORD_MAX_LENGTH}
              aria-invalid={tooShort || undefined}
              aria-describedby={tooShort ? `${ids.problem} ${ids.hint}` : ids.hint}
              readOnly={busy}
            />
            <p id={ids.hint} className="form-hint">
              {t('passwordLink.hint')}
            </p>
          </div>
          <button type="submit" className="btn btn-primary sign-in-submit" aria-disabled={busy || undefined}>
            {t('passwordLink.submit')}
          </button>
        </form>
      )}
    </section>
  );
}
