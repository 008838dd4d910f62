import { builtInPageTexts } from '@dea/contract';
import { Alert } from '../shared/components/alert';
import { Spinner } from '../shared/components/spinner';
import { readStorage } from '../shared/storage';
import { ConsoleI18nProvider, LANGUAGE_STORAGE_KEY, useConsoleLanguage } from './i18n/console-i18n';
import { ConsoleSession } from './session/console-session';

/**
 * The help-desk and administration console at /admin/: its texts first (the `console.` group of
 * the product's catalog in the operator's language), then the session. Until they are there, and
 * when they cannot be loaded, it speaks the texts built into the contract (the page's, for a
 * failed start) in the language chosen before or the browser's.
 */
export function ConsoleApp() {
  const { i18n, failed, retry } = useConsoleLanguage();
  if (i18n !== undefined)
    return (
      <ConsoleI18nProvider value={i18n}>
        <ConsoleSession />
      </ConsoleI18nProvider>
    );
  const texts = builtInPageTexts(readStorage('local', LANGUAGE_STORAGE_KEY) ?? navigator.language);
  if (!failed) return <Spinner label={texts.loading} />;
  return (
    <main className="card sign-in-card" data-testid="console-start-failure">
      <h1 className="card-title">{texts['content.unavailableTitle']}</h1>
      <Alert variant="danger" announce testId="console-error">
        {texts['error.generic']}
      </Alert>
      <button type="button" className="btn btn-primary" onClick={retry}>
        {texts['content.tryAgain']}
      </button>
    </main>
  );
}
