import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { parseHash, useHashRoute } from './hash-route';

describe('parseHash (spec section 2: logoutLanding and a catch-all to the root)', () => {
  it('reads the root', () => {
    for (const hash of ['', '#', '#/'])
      expect(parseHash(hash, '')).toEqual({ route: { name: 'main' }, redirectToRoot: false });
  });

  it('reads the logout landing with its query', () => {
    const { route, redirectToRoot } = parseHash('#/logoutLanding?ep=https%3A%2F%2Fhost%2Flogin%2F', '');
    expect(redirectToRoot).toBe(false);
    expect(route.name).toBe('logoutLanding');
    expect(route.name === 'logoutLanding' && route.query.get('ep')).toBe('https://host/login/');
  });

  it('also reads the query string of the page URL', () => {
    const { route } = parseHash('#/logoutLanding', '?ep=https%3A%2F%2Fhost%2F');
    expect(route.name === 'logoutLanding' && route.query.get('ep')).toBe('https://host/');
  });

  it('sends every other route to the root', () => {
    for (const hash of ['#/nothing', '#/logoutlanding', '#/logoutLanding/extra', '#/../x']) {
      expect(parseHash(hash, '')).toEqual({ route: { name: 'main' }, redirectToRoot: true });
    }
  });
});

describe('useHashRoute', () => {
  /** The address bar changed by a person or a link: the hash, then the event the browser fires. */
  function goToHash(hash: string): void {
    act(() => {
      window.history.pushState(null, '', hash);
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
  }

  it('replaces every unknown hash with #/, not only the first', () => {
    window.history.replaceState(null, '', '/dea/#/unknown');
    const { result } = renderHook(() => useHashRoute());
    expect(window.location.hash).toBe('#/');
    for (const hash of ['#/nothing', '#/other', '#/other', '#/nothing', '#/x?y=1']) {
      goToHash(hash);
      expect(window.location.hash, hash).toBe('#/');
      expect(result.current).toEqual({ name: 'main' });
    }
    goToHash('#/logoutLanding?ep=x');
    expect(result.current.name).toBe('logoutLanding');
    goToHash('#/again');
    expect(window.location.hash).toBe('#/');
    expect(result.current).toEqual({ name: 'main' });
  });
});
