import { useEffect, useState } from 'react';

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

function currentRoute(): Route {
  const { route, redirectToRoot } = parseHash(window.location.hash, window.location.search);
  if (redirectToRoot) window.history.replaceState(window.history.state, '', '#/');
  return route;
}

export function useHashRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
