import { PAGE_BASE_PATH } from '@dea/contract';
import { safeReturnUrl, type PageHost } from '../../shared/safe-return-url';

/**
 * Where a signed-in user goes (DESIGN section 4): the `ep` the page sent along when it is a URL of
 * this very host (the logout landing's check), otherwise the emergency-access page. A crafted
 * link can thus never hand a fresh session's user over to another site.
 */
export function signInReturnTarget(
  ep: string | null | undefined,
  location: PageHost & Pick<Location, 'origin'>,
): string {
  return safeReturnUrl(ep, location) ?? new URL(PAGE_BASE_PATH, location.origin).href;
}
