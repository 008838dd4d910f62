import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resetBrowserPasskeys, startAuthentication } from './testing/browser-passkeys';
import { shippedCatalog } from '../testing/catalogs';
import { ConsoleApp } from './console-app';
import { envelope, fakeConsoleApi, refusal } from './testing/render-console';

const arabic = shippedCatalog('ar');

vi.mock('@simplewebauthn/browser', () => import('./testing/browser-passkeys'));
beforeEach(resetBrowserPasskeys);

const ended = refusal(401, 3, 'You are not allowed to do this.');
const ME = {
  username: 'ada',
  displayName: 'Ada Auditor',
  role: 'auditor',
  passkeyVerified: true,
  next: null,
};

/** The console as it starts in a browser (StrictMode, its own language choice). */
const renderApp = () =>
  render(
    <StrictMode>
      <ConsoleApp />
    </StrictMode>,
  );

describe('the console application', () => {
  it('opens right to left in Arabic, and left to right again when English is chosen with the keyboard', async () => {
    window.localStorage.setItem('dea.console.language', 'ar');
    const calls = fakeConsoleApi({ 'GET me': () => ended });
    renderApp();
    expect(
      await screen.findByRole('heading', { name: arabic['console.signIn.heading'] }),
    ).toBeInTheDocument();
    expect(document.documentElement.dir).toBe('rtl');
    expect(document.documentElement.lang).toBe('ar');
    expect(document.title).toBe(arabic['console.title']);

    const select = screen.getByTestId('console-language');
    select.focus();
    await userEvent.selectOptions(select, 'en');
    expect(await screen.findByRole('heading', { name: 'Sign in to the console' })).toBeInTheDocument();
    expect(document.documentElement.dir).toBe('ltr');
    expect(window.localStorage.getItem('dea.console.language')).toBe('en');

    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Enter your user name and password.');
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('signs in with password and passkey, opens the screens of the role, and signs out', async () => {
    let signedIn = false;
    let verified = false;
    startAuthentication.mockImplementation(async () => ({
      id: 'cred',
      rawId: 'cred',
      type: 'public-key',
      response: {},
    }));
    const calls = fakeConsoleApi({
      'GET me': () =>
        !signedIn ? ended : envelope({ ...ME, passkeyVerified: verified, next: verified ? null : 'passkey' }),
      'POST session': (call) =>
        (call.body as { password: string }).password === 'right'
          ? ((signedIn = true), envelope({ next: 'passkey' }))
          : refusal(200, 3, 'The user name or password is wrong.'),
      'POST passkey/authentication/options': () => envelope({ challenge: 'abc' }),
      'POST passkey/authentication': () => ((verified = true), envelope({})),
      'GET audit': () => envelope({ entries: [], next: null }),
      'POST session/end': () => ((signedIn = false), envelope({})),
    });
    renderApp();
    await userEvent.type(await screen.findByLabelText('Console user name'), 'ada');
    await userEvent.type(screen.getByLabelText('Password'), 'wrong{Enter}');
    expect(await screen.findByTestId('console-error')).toHaveTextContent(
      'The user name or password is wrong.',
    );
    await userEvent.clear(screen.getByLabelText('Password'));
    await userEvent.type(screen.getByLabelText('Password'), 'right{Enter}');

    await userEvent.click(await screen.findByRole('button', { name: 'Use my passkey' }));
    expect(await screen.findByRole('heading', { name: 'Audit log' })).toBeInTheDocument();
    expect(screen.getByTestId('console-account')).toHaveTextContent('Ada Auditor');
    expect(screen.queryByRole('link', { name: 'Help desk' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByTestId('console-notice')).toHaveTextContent(
      'You have signed out of the console.',
    );
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      'session',
      'session',
      'passkey/authentication/options',
      'passkey/authentication',
      'session/end',
    ]);
  });

  it('says when the browser used no passkey, and offers to try again', async () => {
    startAuthentication.mockImplementation(async () => {
      throw Object.assign(new Error('cancelled'), { name: 'NotAllowedError' });
    });
    fakeConsoleApi({
      'GET me': () => envelope({ ...ME, passkeyVerified: false, next: 'passkey' }),
      'POST passkey/authentication/options': () => envelope({ challenge: 'abc' }),
    });
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Use my passkey' }));
    expect(await screen.findByTestId('console-error')).toHaveTextContent('The browser did not use a passkey');
    expect(screen.getByRole('button', { name: 'Use my passkey' })).toBeEnabled();
  });

  it('says when the server cannot be reached at the start, and tries again on request', async () => {
    let reachable = false;
    fakeConsoleApi({
      'GET me': () => {
        if (!reachable) throw new TypeError('Failed to fetch');
        return envelope(ME);
      },
      'GET audit': () => envelope({ entries: [], next: null }),
    });
    renderApp();
    expect(await screen.findByTestId('console-error')).toHaveTextContent('The server could not be reached.');
    reachable = true;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Audit log' })).toBeInTheDocument();
  });

  it("speaks the server's catalog as it is: an operator's changed text, a language an operator added", async () => {
    window.localStorage.setItem('dea.console.language', 'pt_BR');
    const english = shippedCatalog('en');
    const asked: (string | undefined)[] = [];
    fakeConsoleApi({
      'GET me': () => ended,
      'GET /dea/api/resourceFile/getLanguageList': () =>
        envelope([
          { languageCode: 'en', languageName: 'English' },
          { languageCode: 'pt_BR', languageName: 'Português (Brasil)' },
        ]),
      'GET /dea/api/message': (call) => {
        asked.push(call.query?.lang);
        return { body: { ...english, 'console.signIn.heading': 'Entrar no console da ACME' } };
      },
    });
    renderApp();
    expect(await screen.findByRole('heading', { name: 'Entrar no console da ACME' })).toBeInTheDocument();
    expect(asked).toEqual(['pt_BR']);
    expect(document.documentElement.lang).toBe('pt-BR');
    expect(screen.getByRole('option', { name: 'Português (Brasil)' })).toBeInTheDocument();
  });

  it('says when its texts cannot be loaded, in the texts built into the contract, and tries again on request', async () => {
    let reachable = false;
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    fakeConsoleApi({
      'GET me': () => ended,
      'GET /dea/api/message': (call) =>
        reachable
          ? { body: { ...shippedCatalog('en'), ...shippedCatalog(call.query?.lang ?? 'en') } }
          : { status: 503, body: 'unavailable', offContract: 'the server failing' },
    });
    window.localStorage.setItem('dea.console.language', 'de');
    renderApp();
    expect(await screen.findByTestId('console-error')).toHaveTextContent(
      'Ein Fehler ist aufgetreten. Bitte versuchen Sie es später erneut',
    );
    expect(consoleError).toHaveBeenCalled();
    reachable = true;
    await userEvent.click(screen.getByRole('button', { name: 'Erneut versuchen' }));
    expect(await screen.findByRole('heading', { name: 'Bei der Konsole anmelden' })).toBeInTheDocument();
  });

  it('offers a skip link to the content as the first stop of the keyboard', async () => {
    fakeConsoleApi({
      'GET me': () => envelope(ME),
      'GET audit': () => envelope({ entries: [], next: null }),
    });
    renderApp();
    await screen.findByRole('heading', { name: 'Audit log' });
    await userEvent.tab();
    expect(screen.getByRole('link', { name: 'Skip to the content' })).toHaveFocus();
    expect(screen.getByRole('link', { name: 'Skip to the content' })).toHaveAttribute(
      'href',
      '#console-main',
    );
  });
});
