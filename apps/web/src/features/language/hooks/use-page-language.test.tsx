import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { httpStatus, installFakeServer, ok, type FakeServer } from '../../../testing/fake-server';
import { pageReady, renderPage } from '../../../testing/render-page';
import { testMessages, text } from '../../../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

const messageLangs = (): (string | null)[] =>
  server.callsTo('GET message').map((call) => call.query.get('lang'));

describe('language priority (spec section 4)', () => {
  it('takes the language stored locally first, without waiting for the user locale', async () => {
    window.localStorage.setItem('lang', 'fr');
    server.answer('POST user/get', ok({ id: 'user-1', userLocale: 'de' }));
    renderPage();
    expect(await screen.findByRole('heading', { level: 1, name: text('fr', 'content.title') })).toBeVisible();
    expect(messageLangs()).toEqual(['fr']);
    expect(server.callsTo('POST user/get')).toHaveLength(0);
  });

  it("then the user's locale from user/get", async () => {
    server.answer('POST user/get', ok({ id: 'user-1', userLocale: 'de' }));
    renderPage();
    await pageReady();
    expect(messageLangs()).toEqual(['de']);
    expect(window.sessionStorage.getItem('lang')).toBe('de');
  });

  it('then the browser language by its primary part', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('fr-CA');
    server.answer('POST user/get', ok({ id: 'user-1', userLocale: 'ja' }));
    renderPage();
    await pageReady();
    expect(messageLangs()).toEqual(['fr']);
  });

  it("then 'en', whose file 'messages' is asked for without lang", async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('ja-JP');
    server.answer('POST user/get', ok({ id: 'user-1', userLocale: 'zh' }));
    renderPage();
    await pageReady();
    expect(messageLangs()).toEqual([null]);
    expect(window.sessionStorage.getItem('lang')).toBe('en');
  });

  it('sets <html lang> and right-to-left for Arabic', async () => {
    window.localStorage.setItem('lang', 'ar');
    renderPage();
    await pageReady();
    expect(document.documentElement.lang).toBe('ar');
    expect(document.documentElement.dir).toBe('rtl');
  });

  it('names the chosen language in Accept-Language on later calls', async () => {
    window.localStorage.setItem('lang', 'pt_BR');
    renderPage();
    await screen.findByTestId('emergency-code');
    expect(server.callsTo('POST tempPass/create')[0]?.headers.get('Accept-Language')).toBe('pt-BR');
    expect(document.documentElement.lang).toBe('pt-BR');
  });
});

describe('language menu', () => {
  it('switches the texts, remembers the choice and keeps it for the session', async () => {
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    await user.click(screen.getByRole('button', { name: text('en', 'header.userMenu') }));
    await user.click(screen.getByRole('menuitem', { name: text('en', 'header.settings.language') }));
    const submenu = screen.getByRole('menu', { name: text('en', 'header.settings.language') });
    const english = within(submenu).getByRole('menuitemradio', { name: 'English' });
    expect(english.getAttribute('aria-checked')).toBe('true');
    await user.click(within(submenu).getByRole('menuitemradio', { name: 'Deutsch' }));
    await waitFor(() =>
      expect(screen.getByTestId('code-card')).toHaveTextContent(text('de', 'content.title')),
    );
    expect(window.localStorage.getItem('lang')).toBe('de');
    expect(window.sessionStorage.getItem('lang')).toBe('de');
    expect(document.documentElement.lang).toBe('de');
    // The code on screen stays; only its texts change.
    expect(screen.getByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.callsTo('POST tempPass/create')).toHaveLength(1);
  });

  it('keeps no choice whose texts failed: the page stays in its language, and the next visit starts there', async () => {
    server.on('GET message', (call) =>
      call.query.get('lang') === 'de'
        ? httpStatus(500)
        : { body: testMessages(call.query.get('lang') ?? 'en') },
    );
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    await user.click(screen.getByRole('button', { name: text('en', 'header.userMenu') }));
    await user.click(screen.getByRole('menuitem', { name: text('en', 'header.settings.language') }));
    await user.click(screen.getByRole('menuitemradio', { name: 'Deutsch' }));
    expect(await screen.findByText(text('en', 'error.generic'))).toBeVisible();
    expect(window.localStorage.getItem('lang')).toBeNull();
    expect(window.sessionStorage.getItem('lang')).toBe('en');
    expect(screen.getByTestId('code-card')).toHaveTextContent(text('en', 'content.title'));
    // A new code is still asked for in the language on screen.
    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    await waitFor(() => expect(server.callsTo('POST tempPass/create')).toHaveLength(2));
    expect(server.callsTo('POST tempPass/create')[1]?.body).toMatchObject({ attrs: { locale: 'en' } });
  });

  it('switches to right-to-left for Arabic', async () => {
    const { user } = renderPage();
    await pageReady();
    await user.click(screen.getByRole('button', { name: text('en', 'header.userMenu') }));
    await user.click(screen.getByRole('menuitem', { name: text('en', 'header.settings.language') }));
    await user.click(screen.getByRole('menuitemradio', { name: 'العربية' }));
    await waitFor(() => expect(document.documentElement.dir).toBe('rtl'));
    expect(screen.getByRole('banner')).toHaveTextContent(text('ar', 'app.title'));
  });

  it('speaks the language chosen last when the texts of an earlier choice come after it', async () => {
    let releaseGerman = () => undefined as void;
    const germanHeld = new Promise<void>((resolve) => (releaseGerman = resolve));
    server.on('GET message', async (call) => {
      if (call.query.get('lang') === 'de') await germanHeld;
      return { body: testMessages(call.query.get('lang') ?? 'en') };
    });
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    const chooseLanguage = async (name: string) => {
      await user.click(screen.getByRole('button', { name: text('en', 'header.userMenu') }));
      await user.click(screen.getByRole('menuitem', { name: text('en', 'header.settings.language') }));
      await user.click(screen.getByRole('menuitemradio', { name }));
    };
    await chooseLanguage('Deutsch');
    await waitFor(() => expect(messageLangs()).toEqual([null, 'de']));
    await chooseLanguage('Français');
    await waitFor(() => expect(document.documentElement.lang).toBe('fr'));
    await act(async () => releaseGerman());
    expect(document.documentElement.lang).toBe('fr');
    expect(screen.getByTestId('code-card')).toHaveTextContent(text('fr', 'content.title'));
    expect(window.localStorage.getItem('lang')).toBe('fr');
  });
});
