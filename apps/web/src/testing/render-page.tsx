import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { App } from '../app/app';
import { browserLocation } from '../shared/browser-location';

/**
 * Renders the page as the browser would start it: inside #root, at a
 * given hash route.
 */
export function renderPage(hash = '#/') {
  window.history.replaceState(null, '', `/dea/${hash}`);
  const container = document.createElement('div');
  container.id = 'root';
  document.body.append(container);
  const user = userEvent.setup();
  return { ...render(<App />, { container }), user };
}

/** Where the page tried to navigate to, in order. */
export function navigations(): string[] {
  return vi.mocked(browserLocation.assign).mock.calls.map(([url]) => url);
}

/** Waits until the page has loaded its texts and branding (the header is there). */
export async function pageReady(): Promise<void> {
  await screen.findByRole('banner');
}
