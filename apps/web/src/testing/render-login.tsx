import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LoginApp } from '../login-app/login-app';

/** Renders the login application as the browser starts it: inside #root, at /login/ plus a query. */
export function renderLogin(search = '') {
  window.history.replaceState(null, '', `/login/${search}`);
  const container = document.createElement('div');
  container.id = 'root';
  document.body.append(container);
  const user = userEvent.setup();
  return { ...render(<LoginApp />, { container }), user };
}

/**
 * Waits until the texts and branding are in, the form is shown and its arrival focus has landed
 * (an effect that runs after the form appears).
 */
export async function loginReady(): Promise<HTMLFormElement> {
  const form = await screen.findByRole<HTMLFormElement>('form');
  await waitFor(() => {
    if (!form.contains(document.activeElement)) throw new Error('focus is not in the sign-in form yet');
  });
  return form;
}
