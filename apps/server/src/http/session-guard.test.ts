import { XSRF_HEADER_NAME } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from './cookies.js';
import { SIGNED_IN_CALLS, USER_CALLS, API } from '../testing/api-bodies.js';
import { dumpStoreText } from '../testing/store-dump.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { createTestApp, type SignedIn, type TestApp, type TestUser } from '../testing/test-app.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOT_SIGNED_IN = { error: 3, message: 'Please log in first.', result: { loginPath: '/login/' } };
const EXPIRED = { error: 3, message: 'Your session has expired. Please log in again.', result: null };
const BAD_TOKEN = {
  error: 3,
  message: 'The request could not be verified. Reload the page and try again.',
  result: { loginPath: '/login/' },
};

describe.each(DOOR_STORE_KINDS)('sessions of /dea/api/ on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const channelPolicy = { enableECode: true, emergencyCodeDelivery: 'Channel' };
  async function signedIn(
    policy: Record<string, unknown> = { enableECode: true, emergencyCodeDelivery: 'Display' },
  ) {
    const user = await t.createUser({ policy, channels: { mobile: '+49 170 5550112' } });
    return { user, session: await t.signIn(user) };
  }
  const userinfo = (session: SignedIn) => t.call(`${API}/userinfo`, {}, session);

  it('answers 403 to every call without a session, or with a session id the store does not know', async () => {
    const { user } = await signedIn();
    for (const call of SIGNED_IN_CALLS) {
      const none = await t.call(call.url, call.body(user.id));
      expect(none.statusCode, call.name).toBe(403);
      expect(none.json(), call.name).toEqual(NOT_SIGNED_IN);
      const unknown = await t.call(call.url, call.body(user.id), undefined, {
        cookie: `${SESSION_COOKIE}=made-up-session-id`,
        [XSRF_HEADER_NAME]: 'made-up',
      });
      expect(unknown.statusCode, call.name).toBe(403);
    }
  });

  it('names the configured login application in a 403 (DEA_LOGIN_PATH), so the page goes there', async () => {
    const sso = await createTestApp(kind, { DEA_LOGIN_PATH: '/sso/' });
    try {
      const answer = await sso.call(`${API}/userinfo`, {});
      expect(answer.statusCode).toBe(403);
      expect(answer.json()).toMatchObject({ error: 3, result: { loginPath: '/sso/' } });
    } finally {
      await sso.close();
    }
  });

  it('answers 403 to every POST without the X-XSRF-TOKEN header, with a wrong one, or with the token of another session', async () => {
    const { user, session } = await signedIn();
    const other = await signedIn();
    const otherSessionOfSameUser = await t.signIn(user);
    const before = await dumpStoreText(t.testStore);
    for (const call of SIGNED_IN_CALLS) {
      const cookieOnly = { cookie: session.headers.cookie ?? '' };
      const variants = {
        missing: cookieOnly,
        wrong: {
          ...cookieOnly,
          [XSRF_HEADER_NAME]: session.xsrfToken.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        },
        'of another user': { ...cookieOnly, [XSRF_HEADER_NAME]: other.session.xsrfToken },
        'of another session of the same user': {
          ...cookieOnly,
          [XSRF_HEADER_NAME]: otherSessionOfSameUser.xsrfToken,
        },
        'only in the cookie': { cookie: `${cookieOnly.cookie}; XSRF-TOKEN=${session.xsrfToken}` },
      };
      for (const [what, headers] of Object.entries(variants)) {
        const response = await t.app.inject({
          method: 'POST',
          url: call.url,
          payload: call.body(user.id),
          headers,
        });
        expect(response.statusCode, `${call.name}: token ${what}`).toBe(403);
        expect(response.json(), `${call.name}: token ${what}`).toEqual(BAD_TOKEN);
      }
    }
    expect(await dumpStoreText(t.testStore)).toBe(before);
    expect((await userinfo(session)).statusCode).toBe(200);
  });

  it("refuses another user's id in the body (error 3) and reveals nothing of that user", async () => {
    const { user, session } = await signedIn(channelPolicy);
    const victim = await t.createUser({
      policy: channelPolicy,
      channels: { mobile: '+49 160 5550999' },
      locale: 'pl',
    });
    const before = await dumpStoreText(t.testStore);
    for (const call of USER_CALLS) {
      const response = await t.call(call.url, call.body(victim.id), session);
      expect(response.statusCode, call.name).toBe(200);
      expect(response.json(), call.name).toEqual({
        error: 3,
        message: 'You are not allowed to do this.',
        result: null,
      });
      expect(response.body).not.toContain('5550999');
    }
    expect(await dumpStoreText(t.testStore)).toBe(before);
    // Their own id works.
    expect((await t.call(`${API}/user/get`, USER_CALLS[0].body(user.id), session)).json()).toMatchObject({
      error: 0,
    });
  });

  it('ends a session unused for 30 minutes (401), and keeps one in use alive', async () => {
    const idle = await signedIn();
    const active = await signedIn();
    t.clock.advance(29 * MINUTE);
    expect((await userinfo(active.session)).statusCode).toBe(200);
    t.clock.advance(MINUTE);
    const expired = await userinfo(idle.session);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual(EXPIRED);
    expect((await userinfo(active.session)).statusCode).toBe(200);
    t.clock.advance(29 * MINUTE);
    expect((await userinfo(active.session)).statusCode).toBe(200);
    // Expired stays expired, even for a call that needs no token check first.
    expect(
      (await t.call(`${API}/tempPass/create`, USER_CALLS[3].body(idle.user.id), idle.session)).statusCode,
    ).toBe(401);
  });

  it('ends a session 12 hours after sign-in even when it is used all the time (401)', async () => {
    const { session } = await signedIn();
    for (let elapsed = 0; elapsed < 12 * HOUR - 20 * MINUTE; elapsed += 20 * MINUTE) {
      t.clock.advance(20 * MINUTE);
      expect((await userinfo(session)).statusCode).toBe(200);
    }
    t.clock.advance(20 * MINUTE);
    const response = await userinfo(session);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(EXPIRED);
  });

  it('answers 401 once the user is disabled', async () => {
    const { user, session } = await signedIn();
    expect((await userinfo(session)).statusCode).toBe(200);
    await t.services.store.users.update(user.id, { disabled: true });
    expect((await userinfo(session)).statusCode).toBe(401);
  });
});

describe('session timeouts from the settings', () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { DEA_SESSION_IDLE_MINUTES: '5', DEA_SESSION_ABSOLUTE_HOURS: '1' });
    user = await t.createUser();
  });
  afterAll(() => t.close());

  it('applies DEA_SESSION_IDLE_MINUTES and DEA_SESSION_ABSOLUTE_HOURS', async () => {
    const idle = await t.signIn(user);
    t.clock.advance(5 * MINUTE);
    expect((await t.call(`${API}/userinfo`, {}, idle)).statusCode).toBe(401);
    const busy = await t.signIn(user);
    for (let index = 0; index < 14; index += 1) {
      t.clock.advance(4 * MINUTE);
      expect((await t.call(`${API}/userinfo`, {}, busy)).statusCode).toBe(200);
    }
    t.clock.advance(4 * MINUTE);
    expect((await t.call(`${API}/userinfo`, {}, busy)).statusCode).toBe(401);
  });
});
