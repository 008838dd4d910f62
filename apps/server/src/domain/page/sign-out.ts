/**
 * Whether a request to end a session is the user's own doing. GET /dea/logout is a navigation any
 * page can start (a link, a redirect, an image), from another site or from a sibling subdomain of
 * the same site, whose requests carry the session cookie even when it is SameSite=Strict. So only
 * a request the browser marks as coming from this very origin ends the session: the page's Logout
 * and its 401 rule navigate to `<origin><path>/logout` (spec sections 2 and 8), which a browser
 * sends with `Sec-Fetch-Site: same-origin`. A browser without Fetch Metadata gets a page asking
 * to confirm, whose form posts back with its `Origin`: that POST from this origin ends it.
 */
export interface SignOutRequest {
  method: string;
  /** The Sec-Fetch-Site header, if the browser sent one. */
  fetchSite: string | undefined;
  /** The Origin header, if the browser sent one. */
  origin: string | undefined;
  /** This server's origin as the request reached it (scheme, host and port). */
  ownOrigin: string;
}

export function isOwnSignOut(request: SignOutRequest): boolean {
  if (request.fetchSite !== undefined) return request.fetchSite === 'same-origin';
  return request.method === 'POST' && request.origin === request.ownOrigin;
}
