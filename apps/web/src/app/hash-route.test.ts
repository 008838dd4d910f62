import { describe, expect, it } from 'vitest';
import { parseHash } from './hash-route';

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
