import { useEffect, useId, useMemo, useRef, type FormEvent } from 'react';
import { Alert } from '../../../shared/components/alert';
import { useI18n } from '../../../shared/i18n/i18n-context';
import { resolveMessage } from '../../../shared/i18n/page-message';
import { useSignIn, type SignInField } from '../hooks/use-sign-in';

export interface SignInFormProps {
  /** The user name to start with (the `username` query parameter). */
  initialUsername: string;
  /** Where to go once signed in, already checked. */
  returnTo: string;
}

/**
 * The sign-in card: user name, password, submit. Its own messages replace the browser's
 * validation bubbles (those are neither translated nor read reliably): an empty field is marked
 * invalid, described by the message, and focused; a refusal appears in an alert that takes focus.
 * The fields are uncontrolled: React would mirror a controlled value into the `value` attribute,
 * where branding CSS could read the password with attribute selectors.
 */
export function SignInForm({ initialUsername, returnTo }: SignInFormProps) {
  const { t } = useI18n();
  const ids = { heading: useId(), username: useId(), password: useId(), problem: useId() };
  const { state, submit } = useSignIn(returnTo);
  const usernameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const fields = useMemo(
    () => ({ username: usernameRef, password: passwordRef }) satisfies Record<SignInField, unknown>,
    [],
  );
  const problemRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    // On arrival only (later, focus follows each attempt's outcome). A pre-filled user name
    // leaves only the password to type.
    (initialUsername ? fields.password : fields.username).current?.focus();
  }, [fields, initialUsername]);

  useEffect(() => {
    if (state.phase === 'incomplete') {
      const first = state.missing[0];
      if (first) fields[first].current?.focus();
    } else if (state.phase === 'refused') {
      if (fields.password.current) fields.password.current.value = '';
      problemRef.current?.focus();
    }
  }, [state, fields]);

  const busy = state.phase === 'signing-in' || state.phase === 'signed-in';
  const missing = state.phase === 'incomplete' ? state.missing : [];
  const invalid = (field: SignInField) => missing.includes(field);
  const describedBy = (field: SignInField) => (invalid(field) ? ids.problem : undefined);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    submit(fields.username.current?.value ?? '', fields.password.current?.value ?? '');
  }

  return (
    <section className="card sign-in-card" aria-labelledby={ids.heading}>
      <h1 id={ids.heading} className="card-title">
        {t('login.heading')}
      </h1>
      {state.phase === 'incomplete' && (
        <Alert key={state.attempt} variant="danger" announce id={ids.problem} testId="sign-in-required">
          {t('login.required')}
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
          testId={state.locked ? 'sign-in-locked' : 'sign-in-error'}
        >
          {resolveMessage(state.message, t)}
        </Alert>
      )}
      <form
        className="sign-in-form"
        method="post"
        noValidate
        onSubmit={onSubmit}
        aria-labelledby={ids.heading}
      >
        <div className="form-field">
          <label htmlFor={ids.username}>{t('login.username')}</label>
          <input
            ref={fields.username}
            id={ids.username}
            name="username"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            dir="auto"
            required
            aria-invalid={invalid('username') || undefined}
            aria-describedby={describedBy('username')}
            readOnly={busy}
            defaultValue={initialUsername}
          />
        </div>
        <div className="form-field">
          <label htmlFor={ids.password}>{t('login.password')}</label>
          <input
            ref={fields.password}
            id={ids.password}
            name="password"
            type="password"
            autoComplete="current-password"
            required
            aria-invalid={invalid('password') || undefined}
            aria-describedby={describedBy('password')}
            readOnly={busy}
          />
        </div>
        <button type="submit" className="btn btn-primary sign-in-submit" aria-disabled={busy || undefined}>
          {t('login.submit')}
        </button>
        <p className="sign-in-status" role="status" data-testid="sign-in-status">
          {busy && <span className="spinner spinner-inline" aria-hidden="true" />}
          {state.phase === 'signing-in' && t('login.signingIn')}
          {state.phase === 'signed-in' && t('login.signedIn')}
        </p>
      </form>
    </section>
  );
}
