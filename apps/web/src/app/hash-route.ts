import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { parseHash, type Route } from './parse-hash';

export { parseHash, type Route } from './parse-hash';

/** The catch-all (spec section 2): an address that reads as no route becomes '#/'. */
function replaceUnknownHash(): void {
  if (parseHash(window.location.hash, window.location.search).redirectToRoot)
    window.history.replaceState(window.history.state, '', '#/');
}

function subscribe(onChange: () => void): () => void {
  // Every change of the hash is read after the catch-all replaced it, not only the first: the
  // same unknown hash twice in a row is replaced twice.
  const listener = () => {
    replaceUnknownHash();
    onChange();
  };
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}

const locationNow = () => `${window.location.hash}\n${window.location.search}`;

/** The route of the address bar, following hash changes; an unknown hash is replaced by '#/'. */
export function useHashRoute(): Route {
  const location = useSyncExternalStore(subscribe, locationNow);
  const route = useMemo(() => {
    const [hash = '', search = ''] = location.split('\n');
    return parseHash(hash, search).route;
  }, [location]);
  // The address the page was opened with.
  useEffect(replaceUnknownHash, []);
  return route;
}
