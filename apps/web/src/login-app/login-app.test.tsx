import type { BrandingEntry } from '@dea/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { httpStatus, installFakeServer, ok, TEST_PASSWORD, type FakeServer } from '../testing/fake-server';
import { navigations } from '../testing/render-page';
import { loginReady, renderLogin } from '../testing/render-login';
import { text } from '../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

type User = ReturnType<typeof renderLogin>['user'];

const usernameField = (language = 'en') =>
  screen.getByRole<HTMLInputElement>('textbox', { name: text(language, 'login.username') });
const passwordField = (language = 'en') =>
  screen.getByLabelText<HTMLInputElement>(text(language, 'login.password'));
const submitButton = (language = 'en') =>
  screen.getByRole('button', { name: text(language, 'login.submit') });

async function signIn(user: User, username: string, password: string): Promise<void> {
  await user.clear(usernameField());
  if (username) await user.type(usernameField(), username);
  await user.clear(passwordField());
  if (password) await user.type(passwordField(), password);
  await user.click(submitButton());
}

const withEp = (ep: string) => `?ep=${encodeURIComponent(ep)}`;

describe('the sign-in form', () => {
  it('labels its fields for people and password managers, and starts on the user name', async () => {
    renderLogin();
    const form = await loginReady();
    expect(within(form).getAllByRole('textbox')).toHaveLength(1);
    expect(screen.getByRole('heading', { level: 1, name: text('en', 'login.heading') })).toBeVisible();
    expect(usernameField().getAttribute('autocomplete')).toBe('username');
    expect(passwordField().getAttribute('autocomplete')).toBe('current-password');
    expect(passwordField().type).toBe('password');
    expect(usernameField().required && passwordField().required).toBe(true);
    expect(submitButton().getAttribute('type')).toBe('submit');
    expect(document.activeElement).toBe(usernameField());
    expect(server.callsTo('POST userinfo')).toHaveLength(0);
  });

  it('pre-fills the user name from the query and starts on the password', async () => {
    renderLogin(`?username=dana${withEp('http://host.test/dea/#/').replace('?', '&')}`);
    await loginReady();
    expect(usernameField().value).toBe('dana');
    expect(passwordField().value).toBe('');
    expect(document.activeElement).toBe(passwordField());
  });

  it('walks the header and the form in reading order with Tab', async () => {
    const { user } = renderLogin();
    await loginReady();
    (document.activeElement as HTMLElement).blur();
    await user.tab();
    expect(document.activeElement).toBe(
      screen.getByRole('button', { name: text('en', 'header.settings.language') }),
    );
    await user.tab();
    expect(document.activeElement).toBe(usernameField());
    await user.tab();
    expect(document.activeElement).toBe(passwordField());
    await user.tab();
    expect(document.activeElement).toBe(submitButton());
  });
});

describe('required fields', () => {
  it('sends nothing, marks both fields and focuses the user name when both are empty', async () => {
    const { user } = renderLogin();
    await loginReady();
    await user.click(submitButton());
    const message = screen.getByRole('alert');
    expect(message).toHaveTextContent(text('en', 'login.required'));
    expect(usernameField().getAttribute('aria-invalid')).toBe('true');
    expect(passwordField().getAttribute('aria-invalid')).toBe('true');
    expect(usernameField().getAttribute('aria-describedby')).toBe(message.id);
    expect(document.activeElement).toBe(usernameField());
    expect(server.callsTo('POST /login/api/session')).toHaveLength(0);
  });

  it('focuses the password when only the password is missing', async () => {
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', '');
    expect(screen.getByTestId('sign-in-required')).toHaveTextContent(text('en', 'login.required'));
    expect(usernameField().hasAttribute('aria-invalid')).toBe(false);
    expect(passwordField().getAttribute('aria-invalid')).toBe('true');
    expect(passwordField().getAttribute('aria-describedby')).toBe(screen.getByRole('alert').id);
    expect(document.activeElement).toBe(passwordField());
    expect(server.callsTo('POST /login/api/session')).toHaveLength(0);
  });

  it('takes a user name of blanks as missing', async () => {
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, '   ', 'secret');
    expect(screen.getByTestId('sign-in-required')).toBeVisible();
    expect(document.activeElement).toBe(usernameField());
  });
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

describe('what branding CSS can see', () => {
  it('finds neither the password nor the user name in a value attribute while they are typed', async () => {
    const { user } = renderLogin();
    await loginReady();
    await user.type(usernameField(), 'dana');
    await user.type(passwordField(), 'Secr3t!');
    expect(passwordField().value).toBe('Secr3t!');
    expect(document.querySelector('input[value^="S"]')).toBeNull();
    expect(document.querySelector('input[value^="d"]')).toBeNull();
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

  it('shows the generic text when the server fails or cannot be reached', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST /login/api/session', httpStatus(500));
    const { user } = renderLogin();
    await loginReady();
    await signIn(user, 'dana', TEST_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(text('en', 'error.generic'));
    server.answer('POST /login/api/session', 'network-error');
    await signIn(user, 'dana', TEST_PASSWORD);
    await waitFor(() => expect(server.callsTo('POST /login/api/session')).toHaveLength(2));
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

describe('languages', () => {
  async function pickLanguage(user: User, name: string, language = 'en') {
    await user.click(screen.getByRole('button', { name: text(language, 'header.settings.language') }));
    await user.click(screen.getByRole('menuitemradio', { name }));
  }

  it('offers every language, the current one checked', async () => {
    const { user } = renderLogin();
    await loginReady();
    await user.click(screen.getByRole('button', { name: text('en', 'header.settings.language') }));
    const menu = screen.getByRole('menu', { name: text('en', 'header.settings.language') });
    const items = within(menu).getAllByRole('menuitemradio');
    expect(items.map((item) => item.querySelector('.menu-label')?.textContent)).toEqual([
      'English',
      'Deutsch',
      'Français',
      'العربية',
      'Português (Brasil)',
    ]);
    expect(items[0]?.getAttribute('aria-checked')).toBe('true');
    expect(items[3]?.getAttribute('lang')).toBe('ar');
  });

  it('switches at once, keeps the choice, and asks the server in that language', async () => {
    const { user } = renderLogin();
    await loginReady();
    await pickLanguage(user, 'Deutsch');
    expect(await screen.findByRole('heading', { level: 1, name: text('de', 'login.heading') })).toBeVisible();
    expect(document.documentElement.lang).toBe('de');
    expect(window.localStorage.getItem('lang')).toBe('de');
    expect(window.sessionStorage.getItem('lang')).toBe('de');
    await user.type(usernameField('de'), 'dana');
    await user.type(passwordField('de'), 'wrong{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent(text('de', 'login.failed'));
    expect(server.callsTo('POST /login/api/session')[0]?.headers.get('Accept-Language')).toBe('de');
  });

  it('names Brazilian Portuguese as pt-BR in Accept-Language', async () => {
    window.localStorage.setItem('lang', 'pt_BR');
    const { user } = renderLogin();
    await loginReady();
    await user.type(usernameField('pt_BR'), 'dana');
    await user.type(passwordField('pt_BR'), 'wrong{Enter}');
    await screen.findByRole('alert');
    expect(server.callsTo('POST /login/api/session')[0]?.headers.get('Accept-Language')).toBe('pt-BR');
  });

  it('speaks the stored choice first, whatever the browser says', async () => {
    window.localStorage.setItem('lang', 'fr');
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    renderLogin();
    expect(await screen.findByRole('heading', { level: 1, name: text('fr', 'login.heading') })).toBeVisible();
  });

  it('follows the browser language by its primary part without a stored choice', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-AT');
    renderLogin();
    expect(await screen.findByRole('heading', { level: 1, name: text('de', 'login.heading') })).toBeVisible();
    expect(server.callsTo('POST user/get')).toHaveLength(0);
  });

  it('falls back to English for a browser language the list lacks', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('ja-JP');
    renderLogin();
    expect(await screen.findByRole('heading', { level: 1, name: text('en', 'login.heading') })).toBeVisible();
  });

  it('lays Arabic out right to left', async () => {
    const { user } = renderLogin();
    await loginReady();
    await pickLanguage(user, 'العربية');
    await screen.findByRole('heading', { level: 1, name: text('ar', 'login.heading') });
    expect(document.documentElement.dir).toBe('rtl');
    expect(document.documentElement.lang).toBe('ar');
    await pickLanguage(user, 'English', 'ar');
    await screen.findByRole('heading', { level: 1, name: text('en', 'login.heading') });
    expect(document.documentElement.dir).toBe('ltr');
  });
});

describe('branding (spec section 3)', () => {
  const entry = (name: string, type: BrandingEntry['type'], value: string, isDefault = false) => ({
    name,
    type,
    value,
    isDefault,
  });

  it('uses the same defaults as the page', async () => {
    renderLogin();
    await loginReady();
    expect(document.title).toBe(text('en', 'app.title'));
    expect(screen.getByTestId('header-middle')).toHaveTextContent(text('en', 'app.title'));
    expect(screen.getByTestId('footer-left')).toHaveTextContent(text('en', 'app.title'));
    expect(screen.getByTestId('footer-right')).toHaveTextContent(
      text('en', 'app.version', { version: '8.0.20' }),
    );
    expect(screen.getByRole('img', { name: text('en', 'header.logo') })).toBeVisible();
    expect(screen.queryByTestId('branding-css')).toBeNull();
  });

  it("applies the administrator's branding, sanitized, and skips entries marked isDefault", async () => {
    server.branding([
      entry('CSS', 'css', '.page-header { background: rgb(1, 2, 3); }'),
      entry('htmlTitle', 'text', 'Acme Emergency'),
      entry('headerMiddle', 'html', '<strong>Acme</strong> access'),
      entry('headerRight', 'html', '<em>Acme IT</em>'),
      entry('footerLeft', 'html', '<a href="javascript:window.hacked = true">Help</a>'),
      entry('footerRight', 'html', 'Not this', true),
      entry('headerLeft', 'image', 'https://acme.test/logo.png'),
    ]);
    renderLogin();
    await loginReady();
    expect(document.title).toBe('Acme Emergency');
    expect(screen.getByTestId('branding-css').textContent).toBe('.page-header { background: rgb(1, 2, 3); }');
    expect(within(screen.getByTestId('header-middle')).getByText('Acme').tagName).toBe('STRONG');
    expect(screen.getByTestId('header-right-custom')).toHaveTextContent('Acme IT');
    expect(screen.getByRole('button', { name: text('en', 'header.settings.language') })).toBeVisible();
    expect(screen.getByTestId('footer-left').querySelector('a')?.hasAttribute('href')).toBe(false);
    expect(screen.getByTestId('footer-right')).toHaveTextContent(
      text('en', 'app.version', { version: '8.0.20' }),
    );
    expect(screen.getByTestId('brand-logo').getAttribute('src')).toBe('https://acme.test/logo.png');
  });

  it('shows the form with the defaults when branding fails, without leaving', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST customizationConfig/getCurrentConfig', httpStatus(403));
    renderLogin();
    await loginReady();
    expect(screen.getByTestId('header-middle')).toHaveTextContent(text('en', 'app.title'));
    expect(navigations()).toEqual([]);
  });
});
