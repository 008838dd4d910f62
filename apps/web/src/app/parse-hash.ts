/**
 * The page's hash routes, without React: the page's startup (hash-route.ts) and the code asked for
 * beside the scripts (code-on-load.ts) read them alike.
 */

/** The page's two routes (spec section 2). */
export type Route = { name: 'main' } | { name: 'logoutLanding'; query: URLSearchParams };

const LOGOUT_LANDING = 'logoutLanding';

/**
 * Reads '#/logoutLanding?ep=...' style hashes. Anything that is neither the root nor the logout
 * landing is a catch-all that redirects to the root. The landing's query may also arrive in the
 * real query string, so both are read (the hash one wins).
 */
export function parseHash(hash: string, search: string): { route: Route; redirectToRoot: boolean } {
  const withoutMark = hash.replace(/^#/, '');
  const queryStart = withoutMark.indexOf('?');
  const path = (queryStart < 0 ? withoutMark : withoutMark.slice(0, queryStart)).replace(/^\/+|\/+$/g, '');
  if (path === LOGOUT_LANDING) {
    const query = new URLSearchParams(search);
    if (queryStart >= 0)
      new URLSearchParams(withoutMark.slice(queryStart + 1)).forEach((value, name) => query.set(name, value));
    return { route: { name: 'logoutLanding', query }, redirectToRoot: false };
  }
  return { route: { name: 'main' }, redirectToRoot: path !== '' };
}
