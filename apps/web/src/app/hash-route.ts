import { useEffect, useMemo, useSyncExternalStore } from 'react';

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

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

const locationNow = () => `${window.location.hash}\n${window.location.search}`;

/** The route of the address bar, following hash changes; an unknown hash is replaced by '#/'. */
export function useHashRoute(): Route {
  const location = useSyncExternalStore(subscribe, locationNow);
  const { route, redirectToRoot } = useMemo(() => {
    const [hash = '', search = ''] = location.split('\n');
    return parseHash(hash, search);
  }, [location]);
  useEffect(() => {
    if (redirectToRoot) window.history.replaceState(window.history.state, '', '#/');
  }, [redirectToRoot]);
  return route;
}
