import type { ConsoleMe } from '@dea/contract';
import { useCallback, useEffect, useState } from 'react';
import { Spinner } from '../../shared/components/spinner';
import { usePromise, type PromiseState } from '../../shared/hooks/use-promise';
import { consoleCall, ConsoleCallError } from '../api/console-call';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { ConsoleShell } from '../shell/console-shell';
import { PasskeyStep } from '../sign-in/passkey-step';
import { PasswordStep } from '../sign-in/password-step';
import { keepEnrolmentLinkOfAddress } from './enrolment-link';
import { oidcRefusalOfAddress } from './oidc-refusal';
import { SignedOutContext } from './signed-out-context';

type State =
  | { kind: 'loading' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'signedOut'; notice?: string }
  | { kind: 'passkey'; me: ConsoleMe; step: 'register-passkey' | 'passkey' }
  | { kind: 'open'; me: ConsoleMe };

/**
 * Where the console stands: who is signed in (GET me) and how far. The password, then the
 * passkey (the first registered through the account's enrolment link), then the screens the
 * account's role allows. A session that ends (idle, signed out
 * elsewhere, account disabled) brings the sign-in back with a word why.
 */
export function ConsoleSession() {
  const { t } = useConsoleI18n();
  // The enrolment link of the first passkey is read off the address before anything else, and
  // again when it is pasted into a console already open.
  const [enrolmentLinkOpened, setEnrolmentLinkOpened] = useState(keepEnrolmentLinkOfAddress);
  // Why the identity provider's sign-in was just refused (the server's #oidc-refused=<reason>).
  const [oidcRefusal] = useState(oidcRefusalOfAddress);
  useEffect(() => {
    const onHashChange = () => setEnrolmentLinkOpened(keepEnrolmentLinkOfAddress());
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);

  // Who is signed in, asked again after each step; a session the console saw end stays ended
  // (with its notice) until the operator signs in again.
  const [round, setRound] = useState(0);
  const me = usePromise((signal) => consoleCall<ConsoleMe>('me', { signal }), [round]);
  const [ended, setEnded] = useState<{ notice: string }>();
  const load = useCallback(() => {
    setEnded(undefined);
    setRound((now) => now + 1);
  }, []);
  const sessionEnded = useCallback(() => setEnded({ notice: t('signIn.sessionEnded') }), [t]);
  const signOut = useCallback(async () => {
    await consoleCall('session/end', { method: 'POST' }).catch(() => undefined);
    setEnded({ notice: t('signIn.signedOut') });
  }, [t]);
  const state = ended ? ({ kind: 'signedOut', notice: ended.notice } as const) : stateOf(me);

  let content;
  switch (state.kind) {
    case 'loading':
      content = <Spinner label={t('loading')} showLabel />;
      break;
    case 'failed':
      content = (
        <div className="card sign-in-card">
          <h1 className="card-title">{t('title')}</h1>
          <FailureAlert error={state.error} />
          <button type="button" className="btn btn-primary" onClick={() => void load()}>
            {t('tryAgain')}
          </button>
        </div>
      );
      break;
    case 'signedOut':
      content = (
        <PasswordStep
          notice={state.notice}
          refusal={oidcRefusal && t(`signIn.oidcRefused.${oidcRefusal}`)}
          onSignedIn={() => void load()}
        />
      );
      break;
    case 'passkey':
      content = (
        <PasskeyStep
          step={state.step}
          enrolmentLinkOpened={enrolmentLinkOpened}
          onVerified={() => void load()}
          onCancel={() => void signOut()}
        />
      );
      break;
    case 'open':
      return (
        <SignedOutContext.Provider value={sessionEnded}>
          <ConsoleShell me={state.me} onSignOut={signOut} />
        </SignedOutContext.Provider>
      );
  }
  return (
    <SignedOutContext.Provider value={sessionEnded}>
      <ConsoleShell me={undefined} onSignOut={signOut}>
        {content}
      </ConsoleShell>
    </SignedOutContext.Provider>
  );
}

/** Where the console stands, from the answer of GET me. */
function stateOf(me: PromiseState<ConsoleMe>): State {
  if (me.state === 'rejected')
    return me.error instanceof ConsoleCallError && me.error.signedOut
      ? { kind: 'signedOut' }
      : { kind: 'failed', error: me.error };
  if (me.state !== 'fulfilled') return { kind: 'loading' };
  return me.value.passkeyVerified || me.value.next === null
    ? { kind: 'open', me: me.value }
    : { kind: 'passkey', me: me.value, step: me.value.next };
}
