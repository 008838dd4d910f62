import { SESSION_STORAGE_KEYS } from '@dea/contract';
import { browserLocation } from '../shared/browser-location';
import { forgetStoredCode } from '../shared/code-storage';
import { loginUrl, logoutUrl } from '../shared/page-urls';
import { readStorage } from '../shared/storage';

/**
 * Spec section 8: while online, 403 (no session) goes to the login application and 401 (session
 * expired) to logout. Offline, a status is not the server's verdict on the session, so the page
 * stays and shows the generic error instead. The login application's path is the one the 403
 * answer names (the server's DEA_LOGIN_PATH).
 */
export function redirectForSessionStatus(status: number, loginPath?: string): boolean {
  if (!navigator.onLine) return false;
  if (status !== 401 && status !== 403) return false;
  forgetStoredCode();
  if (status === 403) {
    browserLocation.assign(
      loginUrl(window.location, readStorage('session', SESSION_STORAGE_KEYS.username), loginPath),
    );
    return true;
  }
  browserLocation.assign(logoutUrl(window.location));
  return true;
}
