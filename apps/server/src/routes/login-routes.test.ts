import { XSRF_COOKIE_NAME } from '@dea/contract';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../http/cookies.js';
import { API } from '../testing/api-bodies.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { createTestApp, type SignedIn, type TestApp, type TestUser } from '../testing/test-app.js';

const SIGN_IN = '/login/api/session';

function setCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}
function setCookie(response: LightMyRequestResponse, name: string): string {
  const found = setCookies(response).find((cookie) => cookie.startsWith(`${name}=`));
  if (found === undefined) throw new Error(`no ${name} in Set-Cookie`);
  return found;
}
const attributes = (cookie: string): string[] =>
  cookie
    .split(';')
    .slice(1)
    .map((part) => part.trim().toLowerCase());

describe.each(DOOR_STORE_KINDS)('sign-in and sign-out on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const signIn = (username: string, password: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: SIGN_IN, payload: { username, password }, headers });
  const userinfo = (session: SignedIn) => t.call(`${API}/userinfo`, {}, session);

  it('signs in: envelope with the user name, an HttpOnly SameSite=Lax session cookie and a readable token cookie', async () => {
    const user = await t.createUser();
    const response = await signIn(user.username, user.password);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ error: 0, message: '', result: { username: user.username } });
    expect(response.headers['cache-control']).toBe('no-store');

    const session = attributes(setCookie(response, SESSION_COOKIE));
    expect(session).toContain('httponly');
    expect(session).toContain('samesite=lax');
    expect(session).toContain('path=/');
    expect(session).not.toContain('secure');
    const token = attributes(setCookie(response, XSRF_COOKIE_NAME));
    expect(token).not.toContain('httponly');
    expect(token).toContain('samesite=lax');
    expect(token).not.toContain('secure');

    const audit = await t.services.store.audit.list({ userId: user.id, event: 'signin.succeeded' });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(user.password);
  });

  it('answers a wrong password and an unknown user identically, with no cookie', async () => {
    const user = await t.createUser();
    const wrong = await signIn(user.username, 'not the password');
    const unknown = await signIn(`nobody-${user.username}`, 'not the password');
    const disabledUser = await t.createUser();
    await t.services.store.users.update(disabledUser.id, { disabled: true });
    const disabled = await signIn(disabledUser.username, disabledUser.password);
    for (const response of [wrong, unknown, disabled]) {
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        error: 3,
        message: 'The user name or password is incorrect.',
        result: null,
      });
      expect(setCookies(response)).toEqual([]);
    }
    expect(unknown.body).toBe(wrong.body);
    const german = await signIn(user.username, 'nope', { 'accept-language': 'de' });
    expect(german.json()).toMatchObject({
      error: 3,
      message: 'Der Benutzername oder das Passwort ist falsch.',
    });
  });

  it('refuses a sign-in posted from another origin, accepts one from its own', async () => {
    const user = await t.createUser();
    for (const origin of ['https://evil.example', 'null', 'http://dea.example.com.evil.example']) {
      const response = await signIn(user.username, user.password, { host: 'dea.example.com', origin });
      expect(response.json(), origin).toMatchObject({ error: 3, result: null });
      expect(setCookies(response), origin).toEqual([]);
    }
    const same = await signIn(user.username, user.password, {
      host: 'dea.example.com',
      origin: 'http://dea.example.com',
    });
    expect(same.json()).toMatchObject({ error: 0 });
    // Behind a TLS proxy that DEA_TRUST_PROXY does not name: the browser's origin is https, on this host.
    const proxied = await signIn(user.username, user.password, {
      host: 'dea.example.com',
      origin: 'https://dea.example.com',
    });
    expect(proxied.json()).toMatchObject({ error: 0 });
    for (const origin of [
      'https://evil.example',
      'https://dea.example.com:8443',
      'https://other.example.com',
    ]) {
      const refused = await signIn(user.username, user.password, { host: 'dea.example.com', origin });
      expect(refused.json(), origin).toMatchObject({ error: 3 });
    }
  });

  it('rotates the session id at sign-in and ends the session the browser held before', async () => {
    const user = await t.createUser();
    const first = await t.signIn(user);
    const response = await t.app.inject({
      method: 'POST',
      url: SIGN_IN,
      payload: { username: user.username, password: user.password },
      headers: { cookie: first.headers.cookie ?? '' },
    });
    const secondId = setCookie(response, SESSION_COOKIE).split(';')[0]?.split('=')[1] ?? '';
    const secondToken = setCookie(response, XSRF_COOKIE_NAME).split(';')[0]?.split('=')[1] ?? '';
    expect(secondId).not.toBe(first.sessionId);
    expect(secondId.length).toBeGreaterThanOrEqual(43);
    expect(secondToken).not.toBe(first.xsrfToken);
    expect((await userinfo(first)).statusCode).toBe(401);
    const second: SignedIn = {
      userId: user.id,
      sessionId: secondId,
      xsrfToken: secondToken,
      headers: { cookie: `${SESSION_COOKIE}=${secondId}`, 'X-XSRF-TOKEN': secondToken },
    };
    expect((await userinfo(second)).statusCode).toBe(200);
  });

  it('keeps several sessions of one user apart (two browsers)', async () => {
    const user = await t.createUser();
    const laptop = await t.signIn(user);
    const phone = await t.signIn(user);
    expect(phone.sessionId).not.toBe(laptop.sessionId);
    expect((await userinfo(laptop)).statusCode).toBe(200);
    expect((await userinfo(phone)).statusCode).toBe(200);
  });

  describe('GET /dea/logout', () => {
    const logout = (headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url: '/dea/logout', headers });

    it('ends the session on the server, clears both cookies and lands on the logout page with the login URL', async () => {
      const user = await t.createUser();
      const session = await t.signIn(user);
      const response = await logout({
        cookie: session.headers.cookie ?? '',
        host: 'dea.example.com:8443',
        'sec-fetch-site': 'same-origin',
      });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe(
        `/dea/#/logoutLanding?ep=${encodeURIComponent('http://dea.example.com:8443/login/')}`,
      );
      expect(response.headers['cache-control']).toBe('no-store');
      for (const name of [SESSION_COOKIE, XSRF_COOKIE_NAME]) {
        const cleared = setCookie(response, name);
        expect(cleared).toMatch(new RegExp(`^${name}=;`));
        expect(cleared.toLowerCase()).toMatch(/expires=thu, 01 jan 1970|max-age=0/);
      }
      // The old cookie no longer opens anything: the session ended (401 sends the page to logout again).
      const after = await userinfo(session);
      expect(after.statusCode).toBe(401);
      expect((await t.services.store.audit.list({ userId: user.id, event: 'signout' })).length).toBe(1);
    });

    it.each([
      ['another site', { 'sec-fetch-site': 'cross-site' }],
      ['a browser without Fetch Metadata', {}],
    ])('keeps the session for a request from %s, and asks to confirm', async (_from, headers) => {
      const user = await t.createUser();
      const session = await t.signIn(user);
      const cookie = session.headers.cookie ?? '';
      const response = await logout({ cookie, 'accept-language': 'de', ...headers });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toContain('<form method="post" action="/dea/logout">');
      expect(response.body).toContain('Möchten Sie sich wirklich abmelden?');
      expect(setCookies(response)).toEqual([]);
      expect((await userinfo(session)).statusCode).toBe(200);
      expect((await t.services.store.audit.list({ userId: user.id, event: 'signout' })).length).toBe(0);
      // From the product's own page the same request ends it.
      await logout({ cookie, 'sec-fetch-site': 'same-origin' });
      expect((await userinfo(session)).statusCode).toBe(401);
    });

    it('ends the session on the confirmation posted from this origin, and on no other post', async () => {
      const user = await t.createUser();
      const session = await t.signIn(user);
      const cookie = session.headers.cookie ?? '';
      const post = (headers: Record<string, string>) =>
        t.app.inject({
          method: 'POST',
          url: '/dea/logout',
          headers: {
            cookie,
            host: 'dea.example.com',
            'content-type': 'application/x-www-form-urlencoded',
            ...headers,
          },
          payload: '',
        });
      const others: Record<string, string>[] = [
        { origin: 'http://evil.example.com' },
        { origin: 'http://dea.example.com', 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of others) {
        const refused = await post(headers);
        expect(refused.statusCode, JSON.stringify(headers)).toBe(200);
        expect(refused.body).toContain('<form method="post"');
        expect((await userinfo(session)).statusCode).toBe(200);
      }
      // A browser without Fetch Metadata posts the confirmation with its Origin (https behind a
      // TLS proxy that is not trusted for X-Forwarded-Proto: this host still).
      const confirmed = await post({ origin: 'https://dea.example.com' });
      expect(confirmed.statusCode).toBe(303);
      expect(confirmed.headers.location).toMatch(/^\/dea\/#\/logoutLanding\?ep=/);
      expect(setCookie(confirmed, SESSION_COOKIE)).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
      expect((await userinfo(session)).statusCode).toBe(401);
    });

    it('lands on the logout page without a session too', async () => {
      const response = await logout();
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe(
        `/dea/#/logoutLanding?ep=${encodeURIComponent('http://localhost:80/login/')}`,
      );
    });
  });
});

describe('cookies and URLs behind TLS', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));
  async function appWith(settings: Record<string, string>): Promise<{ t: TestApp; user: TestUser }> {
    const t = await createTestApp('sqlite', settings);
    apps.push(t);
    return { t, user: await t.createUser() };
  }
  const signIn = (t: TestApp, user: TestUser, headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: SIGN_IN,
      payload: { username: user.username, password: user.password },
      headers,
    });
  /** Whether each of the two cookies is Secure, whichever of its two names it was given. */
  const secureFlags = (response: LightMyRequestResponse) =>
    [SESSION_COOKIE, XSRF_COOKIE_NAME].map((name) => {
      const prefixed = setCookies(response).some((cookie) => cookie.startsWith(`__Host-${name}=`));
      const cookie = setCookie(response, prefixed ? `__Host-${name}` : name);
      // A __Host- cookie must be Secure, on path /, without Domain (RFC 6265bis 4.1.3.2).
      if (prefixed) expect(attributes(cookie)).toEqual(expect.arrayContaining(['secure', 'path=/']));
      return attributes(cookie).includes('secure') && prefixed;
    });

  it('sets Secure when a trusted proxy says the request came over TLS, and builds https URLs', async () => {
    const { t, user } = await appWith({ DEA_TRUST_PROXY: '127.0.0.1', DEA_LOGIN_PATH: '/sso/' });
    const tls = { 'x-forwarded-proto': 'https', host: 'dea.example.com' };
    const response = await signIn(t, user, { ...tls, origin: 'https://dea.example.com' });
    expect(response.json()).toMatchObject({ error: 0 });
    expect(secureFlags(response)).toEqual([true, true]);
    expect(secureFlags(await signIn(t, user, { host: 'dea.example.com' }))).toEqual([false, false]);
    const logout = await t.app.inject({
      method: 'GET',
      url: '/dea/logout',
      headers: { ...tls, 'sec-fetch-site': 'same-origin' },
    });
    expect(setCookies(logout).length).toBeGreaterThan(0);
    expect(setCookies(logout).every((cookie) => attributes(cookie).includes('secure'))).toBe(true);
    expect(logout.headers.location).toBe(
      `/dea/#/logoutLanding?ep=${encodeURIComponent('https://dea.example.com/sso/')}`,
    );
  });

  it('behind TLS names the cookies __Host-, sends HSTS, reads only the __Host- session, and refuses a planted plain one', async () => {
    const { t, user } = await appWith({ DEA_TRUST_PROXY: '127.0.0.1' });
    const tls = { 'x-forwarded-proto': 'https', host: 'dea.example.com' };
    const response = await signIn(t, user, { ...tls, origin: 'https://dea.example.com' });
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000');
    const session = setCookie(response, `__Host-${SESSION_COOKIE}`).split(';')[0] ?? '';
    const xsrf = (setCookie(response, `__Host-${XSRF_COOKIE_NAME}`).split(';')[0] ?? '').split('=')[1] ?? '';
    const userinfo = (cookie: string, headers: Record<string, string> = tls) =>
      t.app.inject({
        method: 'POST',
        url: '/dea/api/userinfo',
        payload: {},
        headers: { ...headers, cookie, 'x-xsrf-token': xsrf },
      });
    expect((await userinfo(session)).statusCode).toBe(200);
    // The same session id under the plain name, as a sibling host over http could plant it: no session.
    const planted = session.replace(`__Host-${SESSION_COOKIE}=`, `${SESSION_COOKIE}=`);
    expect((await userinfo(planted)).statusCode).toBe(403);
    // Plain HTTP: no HSTS, the other headers as ever (a JSON answer's own policy).
    const plain = await signIn(t, user, { host: 'dea.example.com' });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    expect(plain.headers['x-frame-options']).toBe('DENY');
    expect(plain.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('ignores X-Forwarded-Proto from an untrusted client', async () => {
    const { t, user } = await appWith({});
    const response = await signIn(t, user, { 'x-forwarded-proto': 'https' });
    expect(secureFlags(response)).toEqual([false, false]);
  });

  it('sets Secure always with DEA_COOKIE_SECURE=always, never with never', async () => {
    const always = await appWith({ DEA_COOKIE_SECURE: 'always' });
    expect(secureFlags(await signIn(always.t, always.user, {}))).toEqual([true, true]);
    const never = await appWith({ DEA_COOKIE_SECURE: 'never', DEA_TRUST_PROXY: '1' });
    expect(secureFlags(await signIn(never.t, never.user, { 'x-forwarded-proto': 'https' }))).toEqual([
      false,
      false,
    ]);
  });
});
