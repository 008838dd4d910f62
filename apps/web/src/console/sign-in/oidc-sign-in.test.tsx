import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { describe, expect, it } from 'vitest';
import { ConsoleApp } from '../console-app';
import { fakeConsoleApi, refusal, envelope } from '../testing/render-console';
import { shippedCatalog } from '../../testing/catalogs';

const arabic = shippedCatalog('ar');

const signedOut = refusal(401, 3, 'You are not allowed to do this.');

const renderApp = () =>
  render(
    <StrictMode>
      <ConsoleApp />
    </StrictMode>,
  );

describe("the console's sign-in with the identity provider", () => {
  it('offers "Sign in with <provider>" first, reached with the keyboard, and the console account below it', async () => {
    window.localStorage.setItem('dea.console.language', 'en');
    fakeConsoleApi({
      'GET me': () => signedOut,
      'GET oidc': () => envelope({ provider: { name: 'Example SSO' } }),
    });
    renderApp();
    const link = await screen.findByRole('link', { name: 'Sign in with Example SSO' });
    expect(link).toHaveAttribute('href', '/dea/admin-api/oidc/start');
    expect(
      screen.getByRole('heading', { level: 2, name: 'Or with a console account and passkey' }),
    ).toBeInTheDocument();
    screen.getByTestId('console-language').focus();
    await userEvent.tab();
    expect(link).toHaveFocus();
  });

  it('shows no provider button without one', async () => {
    window.localStorage.setItem('dea.console.language', 'en');
    fakeConsoleApi({ 'GET me': () => signedOut, 'GET oidc': () => envelope({ provider: null }) });
    renderApp();
    expect(await screen.findByRole('heading', { name: 'Sign in to the console' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Sign in with/ })).toBeNull();
  });

  it('says why a sign-in was refused, in the console language, and takes the reason off the address', async () => {
    window.localStorage.setItem('dea.console.language', 'ar');
    window.history.replaceState(null, '', '/admin/#oidc-refused=mfa-missing');
    fakeConsoleApi({
      'GET me': () => signedOut,
      'GET oidc': () => envelope({ provider: { name: 'Example SSO' } }),
    });
    renderApp();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      arabic['console.signIn.oidcRefused.mfa-missing'],
    );
    expect(window.location.hash).toBe('');
    expect(
      await screen.findByRole('link', {
        name: arabic['console.signIn.withProvider'].replace('{provider}', 'Example SSO'),
      }),
    ).toBeInTheDocument();
    expect(document.documentElement.dir).toBe('rtl');
  });
});
