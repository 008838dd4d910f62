import type { ReactNode } from 'react';
import type { CustomBranding } from '../features/branding/resolve-branding';
import { backgroundStyle } from '../features/branding/background-style';
import { BrandingStyle } from '../features/branding/components/branding-style';
import { PageFooter } from '../features/branding/components/page-footer';
import type { PageLanguage } from '../features/language/hooks/use-page-language';
import { Spinner } from '../shared/components/spinner';
import { I18nProvider } from '../shared/i18n/i18n-context';
import { StartupFailure, builtInTexts } from './startup-failure';

interface BrandedShellProps {
  language: PageLanguage;
  branding: CustomBranding | undefined;
  /** The header, main content and anything after the footer (modals), once branding is known. */
  render: (branding: CustomBranding) => { header: ReactNode; main: ReactNode; after?: ReactNode };
  /** Someone is signed in: a startup that fails offers to log out as well as to try again. */
  offerLogout?: boolean;
}

/**
 * What the page and the login application share around their content: a spinner until the texts
 * arrive (or the built-in failure when they cannot), the loading texts while branding loads (spec section 2), then the branded page with its
 * style block, header, footer and background.
 */
export function BrandedShell({ language, branding, render, offerLogout = false }: BrandedShellProps) {
  if (language.i18n === undefined) {
    // Nothing can be said before the texts arrive but the built-in texts (spec section 8).
    return language.failed ? (
      <StartupFailure error={language.failed.error} offerLogout={offerLogout} />
    ) : (
      <div className="page-start">
        <Spinner label={builtInTexts().loading} heading />
      </div>
    );
  }
  const { t } = language.i18n;
  const content = branding === undefined ? undefined : render(branding);
  return (
    <I18nProvider value={language.i18n}>
      {branding === undefined || content === undefined ? (
        <div className="page-start">
          <Spinner label={t('loading')} showLabel heading />
          <p className="loading-custom">{t('loadingCustom')}</p>
        </div>
      ) : (
        <div className="page" style={backgroundStyle(branding)}>
          <BrandingStyle branding={branding} />
          {content.header}
          <main className="page-main">{content.main}</main>
          <PageFooter branding={branding} />
          {content.after}
        </div>
      )}
    </I18nProvider>
  );
}
