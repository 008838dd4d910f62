import { screen } from '@testing-library/react';
import type { renderLogin } from '../testing/render-login';
import { text } from '../testing/test-messages';

export type User = ReturnType<typeof renderLogin>['user'];

export const usernameField = (language = 'en') =>
  screen.getByRole<HTMLInputElement>('textbox', { name: text(language, 'login.username') });
export const passwordField = (language = 'en') =>
  screen.getByLabelText<HTMLInputElement>(text(language, 'login.password'));
export const submitButton = (language = 'en') =>
  screen.getByRole('button', { name: text(language, 'login.submit') });

export async function signIn(user: User, username: string, password: string): Promise<void> {
  await user.clear(usernameField());
  if (username) await user.type(usernameField(), username);
  await user.clear(passwordField());
  if (password) await user.type(passwordField(), password);
  await user.click(submitButton());
}

export const withEp = (ep: string) => `?ep=${encodeURIComponent(ep)}`;
