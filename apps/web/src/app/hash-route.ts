import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { parseHash, type Route } from './parse-hash';

export { parseHash, type Route } from './parse-hash';

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
