import { RETURN_ENDPOINT_PARAM, USERNAME_PARAM } from '@dea/contract';
import { useState } from 'react';
import { backgroundStyle } from '../features/branding/background-style';
import { BrandedHeader } from '../features/branding/components/branded-header';
import { BrandingStyle } from '../features/branding/components/branding-style';
import { PageFooter } from '../features/branding/components/page-footer';
import { useBranding } from '../features/branding/hooks/use-branding';
import { LanguageMenu } from '../features/language/components/language-menu';
import { usePageLanguage } from '../features/language/hooks/use-page-language';
import { SignInForm } from '../features/sign-in/components/sign-in-form';
import { signInReturnTarget } from '../features/sign-in/return-target';
import { Spinner } from '../shared/components/spinner';
import { I18nProvider } from '../shared/i18n/i18n-context';
import type { PageMessage } from '../shared/i18n/page-message';

function logStartProblem(message: PageMessage): void {
  console.error('Login application', message);
}

/**
 * The base login application (DESIGN sections 1 and 4): the page's branding and languages
 * around a sign-in form. Nobody is signed in yet, so the language comes from the stored choice,
 * the browser or 'en' (spec section 4 without the user's locale).
 */
export function LoginApp() {
  const [query] = useState(() => new URLSearchParams(window.location.search));
  const [returnTo] = useState(() => signInReturnTarget(query.get(RETURN_ENDPOINT_PARAM), window.location));
  const language = usePageLanguage(null, logStartProblem);
  const branding = useBranding();

  if (language.i18n === undefined) {
    return language.failed ? null : (
      <div className="page-start">
        <Spinner />
      </div>
    );
  }
  const { t } = language.i18n;

  return (
    <I18nProvider value={language.i18n}>
      {branding === undefined ? (
        <div className="page-start">
          <Spinner label={t('loading')} showLabel />
          <p className="loading-custom">{t('loadingCustom')}</p>
        </div>
      ) : (
        <div className="page" style={backgroundStyle(branding)}>
          <BrandingStyle branding={branding} />
          <BrandedHeader
            branding={branding}
            actions={
              <LanguageMenu languages={language.languages} onSwitchLanguage={language.switchLanguage} />
            }
          />
          <main className="page-main">
            <SignInForm initialUsername={query.get(USERNAME_PARAM) ?? ''} returnTo={returnTo} />
          </main>
          <PageFooter branding={branding} />
        </div>
      )}
    </I18nProvider>
  );
}
