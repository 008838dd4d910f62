import { describe, expect, it } from 'vitest';
import { isOwnSignOut, type SignOutRequest } from './sign-out.js';

const OWN = 'https://dea.example.com';
const request = (overrides: Partial<SignOutRequest>): SignOutRequest => ({
  method: 'GET',
  fetchSite: undefined,
  origin: undefined,
  ownOrigin: OWN,
  ...overrides,
});

describe('whether a request to end the session is the user’s own', () => {
  it('a browser with Fetch Metadata: only a request from this very origin, whatever its method or Origin', () => {
    expect(isOwnSignOut(request({ fetchSite: 'same-origin' }))).toBe(true);
    expect(
      isOwnSignOut(request({ method: 'POST', fetchSite: 'same-origin', origin: 'https://evil.example' })),
    ).toBe(true);
    for (const fetchSite of ['same-site', 'cross-site', 'none'])
      expect(isOwnSignOut(request({ method: 'POST', fetchSite, origin: OWN })), fetchSite).toBe(false);
  });

  it('a browser without it: only the confirmation posted with this origin', () => {
    expect(isOwnSignOut(request({ method: 'POST', origin: OWN }))).toBe(true);
    expect(isOwnSignOut(request({ method: 'GET', origin: OWN }))).toBe(false);
    for (const origin of [
      undefined,
      'null',
      'https://evil.example',
      'https://dea.example.com:8443',
      'http://dea.example.com',
    ])
      expect(isOwnSignOut(request({ method: 'POST', origin })), String(origin)).toBe(false);
  });
});
