import { useCallback, useEffect, useRef, useState } from 'react';
import { failureMessage } from '../api/failure-message';
import { BrandedShell } from '../app/branded-shell';
import { PageHeader } from '../app/page-header';
import { StartupFailure } from '../app/startup-failure';
import { BrandedHeader } from '../features/branding/components/branded-header';
import { useBranding } from '../features/branding/hooks/use-branding';
import { LanguageMenu } from '../features/language/components/language-menu';
import { usePageLanguage } from '../features/language/hooks/use-page-language';
import { LogoutConfirmModal } from '../features/user/components/logout-confirm-modal';
import { useSignedInUser } from '../features/user/hooks/use-signed-in-user';
import { leaveForLogout } from '../features/user/leave-for-logout';
import { Alert } from '../shared/components/alert';
import { Spinner } from '../shared/components/spinner';
import { usePromise, type PromiseState } from '../shared/hooks/use-promise';
import { useI18n } from '../shared/i18n/i18n-context';
import { resolveMessage, type PageMessage } from '../shared/i18n/page-message';
import { serverLocale } from '../shared/i18n/server-locale';
import type { RegistrationWaysResult } from '@dea/contract';
import { ChannelManager } from './channel-manager';
import { getRegistrationWays, openRegistration } from './channels-api';
import { PasskeyWay } from './passkeys/lazy-passkeys';
import { SignInChoices } from './sign-in-choices';
import { UndoLanding } from './undo-landing';

/** What the address's fragment asks for: #undo=<token>, #link=<token>, #signin=refused. */
export type ChannelsRoute =
  | { name: 'undo'; token: string }
  | { name: 'channels'; link?: string; providerRefused: boolean };

export function channelsRouteOf(hash: string): ChannelsRoute {
  const fragment = new URLSearchParams(hash.replace(/^#/, ''));
  const undo = fragment.get('undo');
  if (undo) return { name: 'undo', token: undo };
  const link = fragment.get('link');
  return {
    name: 'channels',
    ...(link ? { link } : {}),
    providerRefused: fragment.get('signin') === 'refused',
  };
}

/** Takes the fragment out of the address, so that a token stays in no history entry or bookmark. */
function forgetFragment(): void {
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
}

/**
 * The page where people manage their emergency channels, served at /dea/channels/:
 * the page's languages, branding and header around the strong sign-in, the channels, or the
 * "this was not me" landing of a notice's link.
 */
export function ChannelsApp() {
  const [route] = useState(() => channelsRouteOf(window.location.hash));
  useEffect(() => {
    if (route.name === 'undo') forgetFragment();
  }, [route.name]);
  return route.name === 'undo' ? <UndoRoute token={route.token} /> : <ChannelsRoutePage route={route} />;
}

function UndoRoute({ token }: { token: string }) {
  const language = usePageLanguage(null, (message) => console.error('Undo landing', message));
  const branding = useBranding(language.i18n !== undefined);
  return (
    <BrandedShell
      language={language}
      branding={branding}
      render={(custom) => ({
        header: (
          <BrandedHeader
            branding={custom}
            actions={
              <LanguageMenu languages={language.languages} onSwitchLanguage={language.switchLanguage} />
            }
          />
        ),
        main: <UndoLanding token={token} />,
      })}
    />
  );
}

function ChannelsRoutePage({ route }: { route: Extract<ChannelsRoute, { name: 'channels' }> }) {
  const [pageMessage, setPageMessage] = useState<PageMessage>();
  const [confirmingLogout, setConfirmingLogout] = useState(false);
  const report = useCallback((message: PageMessage) => setPageMessage(message), []);
  const signedIn = useSignedInUser(report);
  const user = signedIn.state === 'known' ? signedIn.user : undefined;
  const language = usePageLanguage(user?.userId, report);
  const branding = useBranding(language.i18n !== undefined);
  if (signedIn.state === 'failed') return <StartupFailure error={signedIn.error} />;
  const locale = language.chosenLanguage && serverLocale(language.chosenLanguage);
  return (
    <BrandedShell
      language={language}
      branding={branding}
      render={(custom) => ({
        header: (
          <PageHeader
            branding={custom}
            user={user}
            languages={language.languages}
            onSwitchLanguage={language.switchLanguage}
            onLogout={() => setConfirmingLogout(true)}
          />
        ),
        main: (
          <>
            {pageMessage && <PageMessageAlert message={pageMessage} />}
            {user && <ChannelsMain route={route} locale={locale} />}
          </>
        ),
        after: (
          <LogoutConfirmModal
            open={confirmingLogout}
            onCancel={() => setConfirmingLogout(false)}
            onLogout={leaveForLogout}
          />
        ),
      })}
    />
  );
}

function PageMessageAlert({ message }: { message: PageMessage }) {
  const { t } = useI18n();
  return (
    <Alert variant="danger" announce testId="page-error">
      {resolveMessage(message, t)}
    </Alert>
  );
}

/**
 * The person is signed in with their password: a registration link in the address is used first
 * (then taken out of it), then the page asks whether a registration session is open and, if not,
 * which strong sign-ins may open one.
 */
function ChannelsMain({
  route,
  locale,
}: {
  route: Extract<ChannelsRoute, { name: 'channels' }>;
  locale: string | undefined;
}) {
  const { t } = useI18n();
  const [linkProblem, setLinkProblem] = useState<PageMessage>();
  const [round, setRound] = useState(0);
  const askAgain = useCallback(() => setRound((value) => value + 1), []);
  // A link is used once per opening of the page, whatever runs the load again (a new round, or
  // React running the effect twice): its call is kept, and each load waits for it.
  const opening = useRef<Promise<void>>(undefined);
  const loaded = usePromise(
    (signal) => {
      opening.current ??=
        route.link === undefined
          ? Promise.resolve()
          : openRegistration({ link: route.link })
              .then(
                () => undefined,
                (error: unknown) => setLinkProblem(failureMessage(error)),
              )
              .finally(forgetFragment);
      return opening.current.then(() => getRegistrationWays(signal));
    },
    [round],
  );
  // Asked again, the page shows what it knew until the new answer.
  const [ways, setWays] = useState<PromiseState<RegistrationWaysResult>>({ state: 'pending' });
  if (loaded.state !== 'pending' && loaded !== ways) setWays(loaded);

  if (ways.state === 'pending' || ways.state === 'idle') return <Spinner label={t('loading')} showLabel />;
  if (ways.state === 'rejected') {
    const message = failureMessage(ways.error);
    return message ? <PageMessageAlert message={message} /> : null;
  }
  return (
    <>
      {linkProblem && <PageMessageAlert message={linkProblem} />}
      {ways.value.open ? (
        <ChannelManager locale={locale} sessionUntil={ways.value.expiresAt} onSessionEnded={askAgain} />
      ) : (
        <SignInChoices
          ways={ways.value}
          locale={locale}
          providerRefused={route.providerRefused}
          onOpened={askAgain}
          moreWays={<PasskeyWay onOpened={askAgain} />}
        />
      )}
    </>
  );
}
