import { useEffect } from 'react';
import { usePageLanguage } from '../features/language/hooks/use-page-language';
import { LogoutLandingPage } from '../features/logout-landing/components/logout-landing-page';
import { forgetStoredCode } from '../shared/code-storage';
import { I18nProvider } from '../shared/i18n/i18n-context';
import { useHashRoute } from './hash-route';
import { MainPage } from './main-page';
import { StartupFailure } from './startup-failure';

function LogoutLandingRoute({ query }: { query: URLSearchParams }) {
  // No session here: the language comes from the stored choice or the browser, and a code kept
  // from the ended session is forgotten.
  const language = usePageLanguage(null, (message) => console.error('Logout landing', message));
  useEffect(forgetStoredCode, []);
  if (language.i18n === undefined)
    return language.failed ? <StartupFailure error={language.failed.error} /> : null;
  return (
    <I18nProvider value={language.i18n}>
      <LogoutLandingPage query={query} />
    </I18nProvider>
  );
}

export function App() {
  const route = useHashRoute();
  return route.name === 'logoutLanding' ? <LogoutLandingRoute query={route.query} /> : <MainPage />;
}
