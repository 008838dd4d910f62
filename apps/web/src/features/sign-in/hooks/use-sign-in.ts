import { ErrorNumber } from '@dea/contract';
import { useCallback, useRef, useState } from 'react';
import { EnvelopeError, HttpError } from '../../../api/api-error';
import { failureMessage } from '../../../api/failure-message';
import { signIn } from '../../../api/methods';
import { browserLocation } from '../../../shared/browser-location';
import type { PageMessage } from '../../../shared/i18n/page-message';
import { rememberSignedInUser } from '../signed-in-storage';

export type SignInField = 'username' | 'password';

export type SignInState =
  | { phase: 'editing' }
  /** Submitted with empty fields; nothing was sent. */
  | { phase: 'incomplete'; missing: readonly SignInField[]; attempt: number }
  | { phase: 'signing-in' }
  /** The server said no: its own message (wrong credentials and unknown user alike, or locked). */
  | { phase: 'refused'; message: PageMessage; locked: boolean; attempt: number }
  | { phase: 'signed-in' };

export interface SignIn {
  state: SignInState;
  submit: (username: string, password: string) => void;
}

/**
 * Signing in: checks that both fields are filled, sends them, and on success keeps the user name
 * and leaves for `returnTo`. What the form says about a refusal is only the server's message, so
 * it never tells whether a user name exists.
 */
export function useSignIn(returnTo: string): SignIn {
  const [state, setState] = useState<SignInState>({ phase: 'editing' });
  const busy = useRef(false);
  const attempts = useRef(0);

  const submit = useCallback(
    (username: string, password: string) => {
      if (busy.current) return;
      attempts.current += 1;
      const attempt = attempts.current;
      const name = username.trim();
      const missing: SignInField[] = [];
      if (name === '') missing.push('username');
      if (password === '') missing.push('password');
      if (missing.length > 0) {
        setState({ phase: 'incomplete', missing, attempt });
        return;
      }
      busy.current = true;
      setState({ phase: 'signing-in' });
      signIn(name, password).then(
        (result) => {
          rememberSignedInUser(result.username);
          setState({ phase: 'signed-in' });
          browserLocation.assign(returnTo);
        },
        (error: unknown) => {
          busy.current = false;
          if (!(error instanceof EnvelopeError)) console.error('Sign-in failed', error);
          setState({
            phase: 'refused',
            // The login application is not bound by the page's section 8: a server that says it
            // is temporarily unavailable is quoted, in the visitor's language.
            message:
              error instanceof HttpError && error.status === 503 && error.serverMessage
                ? { serverText: error.serverMessage }
                : (failureMessage(error) ?? { key: 'error.generic' }),
            locked: error instanceof EnvelopeError && error.errorNumber === ErrorNumber.tooManyRequests,
            attempt,
          });
        },
      );
    },
    [returnTo],
  );

  return { state, submit };
}
