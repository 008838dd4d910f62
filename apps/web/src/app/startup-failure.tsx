import {
  LOCAL_STORAGE_KEYS,
  SESSION_STORAGE_KEYS,
  builtInPageTexts,
  type BuiltInPageTexts,
} from '@dea/contract';
import { isLeavingPage } from '../api/api-error';
import { leaveForLogout } from '../features/user/leave-for-logout';
import { browserLocation } from '../shared/browser-location';
import { forgetStoredCode } from '../shared/code-storage';
import { Alert } from '../shared/components/alert';
import { readStorage } from '../shared/storage';

/**
 * The texts built into the page in the visitor's language, for when none could be loaded: the
 * language chosen in this browser, or kept for the tab, else the browser's (spec section 4's
 * order without the user's locale, which may be what could not be loaded).
 */
export function builtInTexts(): BuiltInPageTexts {
  return builtInPageTexts(
    readStorage('local', LOCAL_STORAGE_KEYS.lang) ??
      readStorage('session', SESSION_STORAGE_KEYS.lang) ??
      navigator.language,
  );
}

/**
 * What the page shows when its startup stops before any texts could be loaded (user info, the
 * language list or the texts failed): spec section 8's generic failure in the visitor's language
 * (the contract's BUILT_IN_PAGE_TEXTS), with a way to try again (the page loaded anew) and, where
 * someone is signed in (`offerLogout`), to log out. Nothing when the page is already leaving for
 * login or logout (403, 401).
 */
export function StartupFailure({ error, offerLogout = false }: { error: unknown; offerLogout?: boolean }) {
  if (isLeavingPage(error)) return null;
  const texts = builtInTexts();
  return (
    <main className="page-start startup-failure" data-testid="startup-failure">
      <section className="card">
        <h1 className="card-title">{texts['content.unavailableTitle']}</h1>
        <Alert variant="danger" announce testId="page-error">
          {texts['error.generic']}
        </Alert>
        <div className="code-actions">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="try-again"
            onClick={() => browserLocation.reload()}
          >
            {texts['content.tryAgain']}
          </button>
          {offerLogout && (
            <button
              type="button"
              className="btn btn-outline"
              data-testid="startup-logout"
              onClick={() => {
                forgetStoredCode();
                leaveForLogout();
              }}
            >
              {texts.logout}
            </button>
          )}
        </div>
      </section>
    </main>
  );
}
