import { BUILT_IN_PAGE_TEXTS } from '@dea/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { envelopeError, httpStatus, installFakeServer, type FakeServer } from '../testing/fake-server';
import { browserLocation } from '../shared/browser-location';
import { navigations, pageReady, renderPage } from '../testing/render-page';
import { text } from '../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

describe('startup (spec section 4)', () => {
  // The order of the calls and what stops the startup: startup-sequence.test.tsx.
  it('shows a spinner before the texts arrive, its level-one heading read out in the built-in texts', async () => {
    const messages = server.hold('GET message');
    renderPage();
    expect(await screen.findByTestId('spinner')).toHaveTextContent(BUILT_IN_PAGE_TEXTS.en.loading);
    expect(screen.getByRole('heading', { level: 1 })).toHaveClass('visually-hidden');
    messages.release();
    await pageReady();
  });

  it("shows 'loading' and 'loadingCustom' while branding loads", async () => {
    const branding = server.hold('POST customizationConfig/getCurrentConfig');
    renderPage();
    expect(await screen.findByText(text('en', 'loading'))).toBeVisible();
    expect(screen.getByText(text('en', 'loadingCustom'))).toBeVisible();
    expect(screen.queryByRole('banner')).toBeNull();
    branding.release();
    await pageReady();
    expect(screen.queryByText(text('en', 'loadingCustom'))).toBeNull();
  });

  it('logs a start that cannot load any texts and says so in the built-in English', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('GET message', httpStatus(500));
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(
      BUILT_IN_PAGE_TEXTS.en['error.generic'],
    );
    expect(logged).toHaveBeenCalled();
  });
});

describe('a start that cannot load its texts (no dead end)', () => {
  it.each([
    ['de-DE', undefined, 'de'],
    ['en-US', 'ja', 'ja'],
    ['ar', undefined, 'ar'],
    ['sv-SE', undefined, 'en'],
  ] as const)(
    'says so in the built-in texts of the visitor (browser %s, chosen %s), offers to try again and to log out',
    async (browserLanguage, stored, shown) => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      vi.spyOn(navigator, 'language', 'get').mockReturnValue(browserLanguage);
      if (stored) window.localStorage.setItem('lang', stored);
      server.answer('GET message', httpStatus(500));
      const { user } = renderPage();
      const texts = BUILT_IN_PAGE_TEXTS[shown] ?? BUILT_IN_PAGE_TEXTS.en;
      const failure = await screen.findByTestId('startup-failure');
      expect(within(failure).getByRole('heading', { level: 1 })).toHaveTextContent(
        texts['content.unavailableTitle'],
      );
      expect(within(failure).getByRole('alert')).toHaveTextContent(texts['error.generic']);
      await user.click(screen.getByRole('button', { name: texts['content.tryAgain'] }));
      expect(vi.mocked(browserLocation.reload)).toHaveBeenCalledTimes(1);
      window.sessionStorage.setItem('emergencyCode', 'LEFTOVER');
      await user.click(screen.getByRole('button', { name: texts.logout }));
      expect(navigations()).toEqual(['http://host.test/dea/logout']);
      expect(window.sessionStorage.getItem('emergencyCode')).toBeNull();
    },
  );

  it('offers both when the user cannot be loaded, and shows a level-one heading while it loads', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const held = server.hold('POST userinfo');
    renderPage();
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent(
      BUILT_IN_PAGE_TEXTS.en.loading,
    );
    held.release('network-error');
    expect(
      await screen.findByRole('button', { name: BUILT_IN_PAGE_TEXTS.en['content.tryAgain'] }),
    ).toBeVisible();
    expect(screen.getByRole('button', { name: BUILT_IN_PAGE_TEXTS.en.logout })).toBeVisible();
  });
});

describe('errors (spec section 8)', () => {
  it('sends a visitor without a session to the login application', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST userinfo', httpStatus(403));
    renderPage();
    await waitFor(() =>
      expect(navigations()).toEqual([
        `http://host.test/login/?ep=${encodeURIComponent('http://host.test/dea/#/')}`,
      ]),
    );
  });

  it('sends a user whose session expired to logout', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST tempPass/create', httpStatus(401));
    renderPage();
    await waitFor(() => expect(navigations()).toEqual(['http://host.test/dea/logout']));
    expect(screen.queryByTestId('page-error')).toBeNull();
  });

  it('shows the generic text for other HTTP failures', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST user/getPolicy', httpStatus(500));
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(text('en', 'error.generic'));
    expect(screen.queryByTestId('spinner')).toBeNull();
    expect(navigations()).toEqual([]);
  });

  it('shows the generic text when the server cannot be reached', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST user/getPolicy', 'network-error');
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(text('en', 'error.generic'));
  });

  it('stops with the built-in English text when the user cannot be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST userinfo', 'network-error');
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(
      BUILT_IN_PAGE_TEXTS.en['error.generic'],
    );
    expect(server.routesCalled()).toEqual(['POST userinfo']);
  });

  it("shows the server's message for a policy envelope error", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST user/getPolicy', envelopeError(3, 'Policy refused'));
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent('Policy refused');
    expect(screen.queryByTestId('emergency-code')).toBeNull();
  });

  it("shows 'Unable to fetch user locale' when the user's locale cannot be read", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST user/get', envelopeError(3, 'Locale refused'));
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(
      text('en', 'error.userLocale', { message: 'Locale refused' }),
    );
    // The page goes on in the browser's language.
    expect(await screen.findByTestId('emergency-code')).toBeVisible();
  });

  it('uses the defaults when branding fails, without a login redirect', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST customizationConfig/getCurrentConfig', httpStatus(403));
    renderPage();
    await pageReady();
    expect(within(screen.getByTestId('footer-left')).getByText(text('en', 'app.title'))).toBeVisible();
    expect(navigations()).toEqual([]);
  });
});

describe('routes (spec section 2)', () => {
  it('redirects an unknown route to the root', async () => {
    renderPage('#/somewhere/else');
    await pageReady();
    expect(window.location.hash).toBe('#/');
    expect(screen.getByTestId('code-card')).toBeVisible();
  });
});
