import { afterEach, describe, expect, it } from 'vitest';
import { SigninThrottle } from '../domain/signin-throttle.js';
import { STORE_KINDS } from '../testing/stores.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

const MINUTE = 60_000;

describe.each(STORE_KINDS)('sign-in throttling on %s', (kind) => {
  let t: TestApp;
  afterEach(() => t.close());

  const attempt = (username: string, password: string, remoteAddress = '198.51.100.7') =>
    t.app.inject({
      method: 'POST',
      url: '/login/api/session',
      payload: { username, password },
      remoteAddress,
    });

  it('locks a user name after the configured failures, refuses even the right password, and unlocks after the lock time', async () => {
    t = await createTestApp(kind, { DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_LOCK_MINUTES: '10' });
    const user = await t.createUser();
    const answers = [];
    for (let index = 0; index < 3; index += 1) answers.push((await attempt(user.username, 'wrong')).json());
    expect(answers[0]).toEqual({
      error: 3,
      message: 'The user name or password is incorrect.',
      result: null,
    });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual({
      error: 140,
      message: 'Too many failed attempts. Please try again in 10 minutes.',
      result: { retryAfterSeconds: 600 },
    });
    const locked = await attempt(user.username, user.password);
    expect(locked.json()).toMatchObject({ error: 140 });
    expect(locked.headers['retry-after']).toBe('600');
    expect(locked.cookies).toHaveLength(0);

    t.clock.advance(10 * MINUTE);
    expect((await attempt(user.username, user.password)).json()).toMatchObject({ error: 0 });
  });

  it('answers an unknown user name exactly as an existing one, lock included', async () => {
    t = await createTestApp(kind, { DEA_SIGNIN_MAX_FAILURES: '2' });
    const user = await t.createUser();
    const known = [
      (await attempt(user.username, 'wrong')).json(),
      (await attempt(user.username, 'wrong')).json(),
    ];
    const unknown = [
      (await attempt('nobody-here', 'wrong')).json(),
      (await attempt('nobody-here', 'wrong')).json(),
    ];
    expect(unknown).toEqual(known);
    expect(known[1]).toMatchObject({ error: 140 });
  });

  it('locks a client address that sprays many user names, and only that address', async () => {
    t = await createTestApp(kind, {
      DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '4',
      DEA_SIGNIN_MAX_FAILURES: '10',
    });
    const user = await t.createUser();
    for (let index = 0; index < 4; index += 1) await attempt(`guess-${index}`, 'wrong', '203.0.113.9');
    expect((await attempt(user.username, user.password, '203.0.113.9')).json()).toMatchObject({ error: 140 });
    expect((await attempt(user.username, user.password, '198.51.100.20')).json()).toMatchObject({ error: 0 });
  });

  it('forgets failures older than the window, and a successful sign-in clears the count', async () => {
    t = await createTestApp(kind, { DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_WINDOW_MINUTES: '5' });
    const user = await t.createUser();
    await attempt(user.username, 'wrong');
    await attempt(user.username, 'wrong');
    t.clock.advance(6 * MINUTE);
    expect((await attempt(user.username, 'wrong')).json()).toMatchObject({ error: 3 });
    expect((await attempt(user.username, user.password)).json()).toMatchObject({ error: 0 });
    expect((await attempt(user.username, 'wrong')).json()).toMatchObject({ error: 3 });
    expect((await attempt(user.username, 'wrong')).json()).toMatchObject({ error: 3 });
  });

  it('counts every one of many concurrent failures', async () => {
    t = await createTestApp(kind, {
      DEA_SIGNIN_MAX_FAILURES: '100',
      DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
    });
    const user = await t.createUser();
    await Promise.all(Array.from({ length: 12 }, () => attempt(user.username, 'wrong')));
    const state = await t.services.store.signinFailures.find(`user:${user.username.toLowerCase()}`);
    expect(state?.failures).toBe(12);
  });

  it('audits every attempt: failed, locked and succeeded', async () => {
    t = await createTestApp(kind, { DEA_SIGNIN_MAX_FAILURES: '1' });
    const user = await t.createUser();
    await attempt(user.username, 'wrong');
    await attempt(user.username, user.password);
    t.clock.advance(60 * MINUTE);
    await attempt(user.username, user.password);
    const events = (await t.services.store.audit.list({ limit: 10 })).map((entry) => entry.event).reverse();
    expect(events).toEqual(['signin.failed', 'signin.locked', 'signin.succeeded']);
  });
});

describe('sign-in slow-down', () => {
  it('holds failed answers back from the third failure on, doubling, and not once locked', async () => {
    const t = await createTestApp('sqlite');
    try {
      const throttle = new SigninThrottle(t.services.store, {
        userLockAfter: 6,
        addressLockAfter: 100,
        windowMs: 15 * MINUTE,
        lockMs: 15 * MINUTE,
        slowdownMs: 500,
      });
      const delays = [];
      for (let index = 0; index < 6; index += 1) {
        delays.push((await throttle.recordFailure('someone', '192.0.2.1', t.clock.now())).delayMs);
      }
      expect(delays).toEqual([0, 0, 500, 1000, 2000, 0]);
    } finally {
      await t.close();
    }
  });
});
