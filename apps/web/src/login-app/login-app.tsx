import { PASSWORD_LINK_FRAGMENT, RETURN_ENDPOINT_PARAM, USERNAME_PARAM } from '@dea/contract';
import { useState } from 'react';
import { BrandedHeader } from '../features/branding/components/branded-header';
import { useBranding } from '../features/branding/hooks/use-branding';
import { LanguageMenu } from '../features/language/components/language-menu';
import { usePageLanguage } from '../features/language/hooks/use-page-language';
import { BrandedShell } from '../app/branded-shell';
import { PasswordLinkForm } from '../features/password-link/password-link-form';
import { SignInForm } from '../features/sign-in/components/sign-in-form';
import { signInReturnTarget } from '../features/sign-in/return-target';
import type { PageMessage } from '../shared/i18n/page-message';

function logStartProblem(message: PageMessage): void {
  console.error('Login application', message);
}

/**
 * The base login application (DESIGN sections 1 and 4): the page's branding and languages
 * around a sign-in form (or, opened by a one-time password link, the form that sets a new
 * password). Nobody is signed in yet, so the language comes from the stored choice,
 * the browser or 'en' (spec section 4 without the user's locale).
 */
/**
 * The token of a one-time password link (#reset=<token>), taken out of the address at once so
 * that it stays in no history entry, bookmark or screenshot of the address bar.
 */
function takePasswordLinkToken(): string | undefined {
  const prefix = `#${PASSWORD_LINK_FRAGMENT}`;
  if (!window.location.hash.startsWith(prefix)) return undefined;
  const token = window.location.hash.slice(prefix.length);
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
  return token === '' ? undefined : token;
}

export function LoginApp() {
  const [query] = useState(() => new URLSearchParams(window.location.search));
  const [passwordLinkToken] = useState(takePasswordLinkToken);
  const [returnTo] = useState(() => signInReturnTarget(query.get(RETURN_ENDPOINT_PARAM), window.location));
  const language = usePageLanguage(null, logStartProblem);
  const branding = useBranding();

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
        main:
          passwordLinkToken === undefined ? (
            <SignInForm initialUsername={query.get(USERNAME_PARAM) ?? ''} returnTo={returnTo} />
          ) : (
            <PasswordLinkForm token={passwordLinkToken} signInHref={window.location.pathname} />
          ),
      })}
    />
  );
}
