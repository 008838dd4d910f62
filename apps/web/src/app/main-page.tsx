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

/**
 * The main page. Its calls start as soon as what they need is known (spec section 4's order is
 * kept for what the user sees): user, language list and branding at once; the user's locale and
 * policy once the user is known; texts and the code together once the language is chosen.
 */
export function MainPage() {
  const [pageMessage, setPageMessage] = useState<PageMessage>();
  const [confirmingLogout, setConfirmingLogout] = useState(false);
  const report = useCallback((message: PageMessage) => setPageMessage(message), []);
  const clearReport = useCallback(() => setPageMessage(undefined), []);

  const signedIn = useSignedInUser(report);
  const user = signedIn.state === 'known' ? signedIn.user : undefined;
  const userId = user?.userId ?? (signedIn.state === 'failed' ? null : undefined);
  const language = usePageLanguage(userId, report);
  const branding = useBranding();
  const emergencyCode = useEmergencyCode({
    userId,
    // The code needs only the language's locale, not its texts: both are asked for at once.
    locale: language.chosenLanguage && serverLocale(language.chosenLanguage),
    report,
    clearReport,
  });

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
