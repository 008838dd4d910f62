import { describe, expect, it } from 'vitest';
import { loginUrl, logoutUrl } from './page-urls';

describe('logoutUrl', () => {
  it.each([
    ['/dea/', 'https://host/dea/logout'],
    ['/dea', 'https://host/dea/logout'],
    ['/dea//', 'https://host/dea/logout'],
    ['/dea/index.html', 'https://host/dea/logout'],
    ['/', 'https://host/logout'],
    // The channels page leaves through the page's logout.
    ['/dea/channels/', 'https://host/dea/logout'],
    ['/dea/channels/index.html', 'https://host/dea/logout'],
  ])('is origin + %s + /logout without a doubled slash', (pathname, expected) => {
    expect(logoutUrl({ origin: 'https://host', pathname })).toBe(expected);
  });
});

describe('loginUrl', () => {
  const location = { origin: 'https://host', href: 'https://host/dea/#/' };

  it('carries the stored user name and the current URL as ep', () => {
    const url = new URL(loginUrl(location, 'dana'));
    expect(url.origin + url.pathname).toBe('https://host/login/');
    expect(url.searchParams.get('username')).toBe('dana');
    expect(url.searchParams.get('ep')).toBe('https://host/dea/#/');
  });

  it('leaves the user name out when none is stored', () => {
    const url = new URL(loginUrl(location, undefined));
    expect(url.searchParams.has('username')).toBe(false);
    expect(url.searchParams.get('ep')).toBe('https://host/dea/#/');
  });
});
