import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { installFakeServer, type FakeServer } from '../../testing/fake-server';
import { renderLogin } from '../../testing/render-login';
import { text } from '../../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer().passwordLink();
});

const passwordField = () => screen.getByLabelText<HTMLInputElement>(text('en', 'passwordLink.newPassword'));
const saveButton = () => screen.getByRole('button', { name: text('en', 'passwordLink.submit') });

async function ready() {
  await screen.findByRole('heading', { level: 1, name: text('en', 'passwordLink.heading') });
  await waitFor(() => expect(document.activeElement).toBe(passwordField()));
}

describe("the login application's password link form", () => {
  it('opens from #reset=, takes the token out of the address, and sets the password once', async () => {
    const { user } = renderLogin('#reset=good-token');
    await ready();
    expect(window.location.hash).toBe('');
    expect(screen.queryByLabelText(text('en', 'login.username'))).toBeNull();
    expect(passwordField().getAttribute('autocomplete')).toBe('new-password');
    expect(passwordField().getAttribute('aria-describedby')).toBeTruthy();

    await user.type(passwordField(), 'short');
    await user.click(saveButton());
    expect(await screen.findByTestId('password-link-too-short')).toHaveTextContent(
      text('en', 'passwordLink.tooShort'),
    );
    expect(passwordField().getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(passwordField());
    expect(server.callsTo('POST /login/api/password-link')).toHaveLength(0);

    await user.clear(passwordField());
    await user.type(passwordField(), 'a long new password{Enter}');
    const saved = await screen.findByTestId('password-link-saved');
    expect(saved).toHaveTextContent(text('en', 'passwordLink.saved'));
    await waitFor(() => expect(document.activeElement).toBe(saved));
    expect(server.callsTo('POST /login/api/password-link')).toMatchObject([
      { body: { token: 'good-token', password: 'a long new password' } },
    ]);
    expect(screen.getByRole('link', { name: text('en', 'login.submit') }).getAttribute('href')).toBe(
      '/login/',
    );
  });

  it("shows the server's refusal of a link used or expired, focused, and empties the field", async () => {
    const { user } = renderLogin('#reset=used-token');
    await ready();
    await user.type(passwordField(), 'a long new password');
    await user.click(saveButton());
    const refused = await screen.findByTestId('password-link-refused');
    expect(refused).toHaveTextContent(text('en', 'error.passwordLinkInvalid'));
    await waitFor(() => expect(document.activeElement).toBe(refused));
    expect(passwordField().value).toBe('');
  });
});
