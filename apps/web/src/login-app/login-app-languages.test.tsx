import type { BrandingEntry } from '@dea/contract';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { httpStatus, installFakeServer, type FakeServer } from '../testing/fake-server';
import { navigations } from '../testing/render-page';
import { loginReady, renderLogin } from '../testing/render-login';
import { text } from '../testing/test-messages';
import { passwordField, type User, usernameField } from './login-app-fixture';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
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
