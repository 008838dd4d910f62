import { render, screen } from '@testing-library/react';
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

/** Waits until the texts and branding are in and the form is shown. */
export async function loginReady(): Promise<HTMLFormElement> {
  return screen.findByRole('form');
}
