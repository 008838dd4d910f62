import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { installFakeServer, type FakeServer } from '../testing/fake-server';
import { loginReady, renderLogin } from '../testing/render-login';
import { text } from '../testing/test-messages';
import { passwordField, signIn, submitButton, usernameField, withEp } from './login-app-fixture';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

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
