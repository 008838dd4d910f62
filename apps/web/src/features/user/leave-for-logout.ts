import { browserLocation } from '../../shared/browser-location';
import { logoutUrl } from '../../shared/page-urls';

export function leaveForLogout(): void {
  browserLocation.assign(logoutUrl(window.location));
}
