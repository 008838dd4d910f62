import { useCallback, useState } from 'react';
import { useBranding } from '../features/branding/hooks/use-branding';
import { EmergencyCodeCard } from '../features/emergency-code/components/emergency-code-card';
import { useEmergencyCode } from '../features/emergency-code/hooks/use-emergency-code';
import { usePageLanguage } from '../features/language/hooks/use-page-language';
import { LogoutConfirmModal } from '../features/user/components/logout-confirm-modal';
import { useSignedInUser } from '../features/user/hooks/use-signed-in-user';
import { leaveForLogout } from '../features/user/leave-for-logout';
import { Alert } from '../shared/components/alert';
import { forgetStoredCode } from '../shared/code-storage';
import { resolveMessage, type PageMessage } from '../shared/i18n/page-message';
import { serverLocale } from '../shared/i18n/server-locale';
import { BrandedShell } from './branded-shell';
import { PageHeader } from './page-header';
import { StartupFailure } from './startup-failure';

/**
 * The main page. Its startup is spec section 4's sequence, one call after the other: user info,
 * the language list, the user's locale (when the choice needs it), the chosen language's texts,
 * branding, the policy, then the channels or the code. Each step waits for the one before, so a
 * code is only ever created for a page that can show it. The answers delivered with the HTML
 * (ADR 0013) arrive a turn apart, so the sequence costs them no round trip.
 *
 * A failed user info, language list or texts stops the startup with the built-in failure; a failed
 * user locale or branding does not (spec section 8: a message, the defaults).
 */
export function MainPage() {
  const [pageMessage, setPageMessage] = useState<PageMessage>();
  const [confirmingLogout, setConfirmingLogout] = useState(false);
  const report = useCallback((message: PageMessage) => setPageMessage(message), []);
  const clearReport = useCallback(() => setPageMessage(undefined), []);

  const signedIn = useSignedInUser(report);
  const user = signedIn.state === 'known' ? signedIn.user : undefined;
  const userId = user?.userId;
  const language = usePageLanguage(userId, report);
  const branding = useBranding(language.i18n !== undefined);
  const emergencyCode = useEmergencyCode({
    userId,
    ready: language.i18n !== undefined && branding !== undefined,
    locale: language.chosenLanguage && serverLocale(language.chosenLanguage),
    report,
    clearReport,
  });

  if (signedIn.state === 'failed') return <StartupFailure error={signedIn.error} offerLogout />;

  return (
    <BrandedShell
      offerLogout
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
          <EmergencyCodeCard emergencyCode={emergencyCode}>
            {pageMessage && language.i18n && (
              <Alert variant="danger" announce testId="page-error">
                {resolveMessage(pageMessage, language.i18n.t)}
              </Alert>
            )}
          </EmergencyCodeCard>
        ),
        after: (
          <LogoutConfirmModal
            open={confirmingLogout}
            onCancel={() => setConfirmingLogout(false)}
            onLogout={() => {
              forgetStoredCode();
              leaveForLogout();
            }}
          />
        ),
      })}
    />
  );
}
