import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { httpStatus, installFakeServer, ok, TEST_PASSWORD, type FakeServer } from '../testing/fake-server';
import { navigations } from '../testing/render-page';
import { loginReady, renderLogin } from '../testing/render-login';
import { text } from '../testing/test-messages';
import { passwordField, signIn, submitButton, usernameField, withEp } from './login-app-fixture';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

describe('signing in', () => {
  it('submits with Enter, shows progress, and sends the trimmed user name with the password', async () => {
    const pending = server.hold('POST /login/api/session');
    const { user } = renderLogin(withEp('http://host.test/dea/#/'));
    await loginReady();
    await user.type(usernameField(), ' dana ');
    await user.type(passwordField(), `${TEST_PASSWORD}{Enter}`);
    expect(await screen.findByTestId('sign-in-status')).toHaveTextContent(text('en', 'login.signingIn'));
    expect(submitButton().getAttribute('aria-disabled')).toBe('true');
    await user.click(submitButton());
    expect(server.callsTo('POST /login/api/session')).toHaveLength(1);
    expect(server.callsTo('POST /login/api/session')[0]?.body).toEqual({
      username: 'dana',
      password: TEST_PASSWORD,
    });
    expect(navigations()).toEqual([]);
    pending.release();
    await waitFor(() => expect(navigations()).toEqual(['http://host.test/dea/#/']));
    expect(screen.getByTestId('sign-in-status')).toHaveTextContent(text('en', 'login.signedIn'));
  });

  it("keeps the server's user name for the session and forgets a code of an earlier session", async () => {
    server.answer('POST /login/api/session', ok({ username: 'dana' }));
    window.sessionStorage.setItem('emergencyCode', 'OLDCODE');
    window.sessionStorage.setItem('emergencyCodeId', 'old');
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'Dana', TEST_PASSWORD);
    await waitFor(() => expect(navigations()).toHaveLength(1));
    expect(window.sessionStorage.getItem('username')).toBe('dana');
    expect(window.sessionStorage.getItem('emergencyCode')).toBeNull();
    expect(window.sessionStorage.getItem('emergencyCodeId')).toBeNull();
  });

  it.each([
    ['http://host.test/dea/#/', 'http://host.test/dea/#/'],
    ['http://host.test/dea/?x=1#/logoutLanding', 'http://host.test/dea/?x=1#/logoutLanding'],
    ['HTTP://HOST.TEST/dea/', 'http://host.test/dea/'],
    ['host.test/dea/', 'http://host.test/dea/'],
  ])('goes to the return endpoint %j on this host', async (ep, expected) => {
    const { user } = renderLogin(withEp(ep));
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    await waitFor(() => expect(navigations()).toEqual([expected]));
  });

  it.each([
    '//evil.test',
    '/\\evil.test',
    'https:evil.test',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html,hi',
    'https://a@evil.test',
    'https://host.test@evil.test/',
    'https://host.test.evil.test/dea/',
    'HTTPS://EVIL.TEST/',
    'http%3A%2F%2Fevil.test',
    'http://host.test%2eevil.test/',
    'http://host.test:8081/dea/',
    '/dea/',
    'not a url',
    '',
  ])('goes to the page instead of the return endpoint %j', async (ep) => {
    const { user } = renderLogin(withEp(ep));
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    await waitFor(() => expect(navigations()).toEqual(['http://host.test/dea/']));
  });

  it('goes to the page without a return endpoint', async () => {
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    await waitFor(() => expect(navigations()).toEqual(['http://host.test/dea/']));
  });
});

describe('while the server is temporarily unavailable', () => {
  it('quotes its translated 503 message in the alert', async () => {
    const { user } = renderLogin();
    await loginReady();
    server.answer('POST /login/api/session', {
      status: 503,
      body: {
        error: 1,
        message: 'The service is temporarily unavailable. Please try again in a few minutes.',
        result: { retryAfterSeconds: 5 },
      },
    });
    await signIn(user, 'dana', 'secret');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'The service is temporarily unavailable. Please try again in a few minutes.',
    );
  });
});

describe('a refused sign-in', () => {
  it("shows the server's message in an alert that takes focus, and clears the password", async () => {
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', 'wrong');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text('en', 'login.failed'));
    expect(alert.textContent).toBe(text('en', 'login.failed'));
    await waitFor(() => expect(document.activeElement).toBe(alert));
    expect(usernameField().value).toBe('dana');
    expect(passwordField().value).toBe('');
    // Never mirrored into the attribute, where a CSS attribute selector could read it.
    expect(passwordField().hasAttribute('value')).toBe(false);
    expect(navigations()).toEqual([]);
    expect(window.sessionStorage.getItem('username')).toBeNull();
    expect(screen.getByTestId('sign-in-status')).toHaveTextContent('');
  });

  it('lets the user try again, and succeed', async () => {
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', 'wrong');
    await screen.findByTestId('sign-in-error');
    await signIn(user, 'dana', 'still wrong');
    await waitFor(() => expect(server.callsTo('POST /login/api/session')).toHaveLength(2));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('alert')));
    await signIn(user, 'dana', TEST_PASSWORD);
    await waitFor(() => expect(navigations()).toEqual(['http://host.test/dea/']));
  });

  it("shows the server's lockout message", async () => {
    server.lockSignIn(15);
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    const alert = await screen.findByTestId('sign-in-locked');
    expect(alert.getAttribute('role')).toBe('alert');
    expect(alert).toHaveTextContent(text('en', 'login.locked', { minutes: 15 }));
    await waitFor(() => expect(document.activeElement).toBe(alert));
    expect(navigations()).toEqual([]);
  });

  it('shows the generic text when the server fails', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST /login/api/session', httpStatus(500));
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(text('en', 'error.generic'));
    expect(navigations()).toEqual([]);
  });

  it('shows the generic text when the server cannot be reached', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST /login/api/session', 'network-error');
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    await waitFor(() => expect(server.callsTo('POST /login/api/session')).toHaveLength(1));
    expect(await screen.findByRole('alert')).toHaveTextContent(text('en', 'error.generic'));
    expect(navigations()).toEqual([]);
  });

  it('never leaves for another login on a refused sign-in (403)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST /login/api/session', httpStatus(403));
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(text('en', 'error.generic'));
    expect(navigations()).toEqual([]);
  });
});
