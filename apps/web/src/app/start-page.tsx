import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles/page.scss';
import { App } from './app';

/** Mounts the page. A failure to start is only written to the console (spec section 8). */
export function startPage(container: HTMLElement | null): void {
  try {
    if (container === null) throw new Error('The page has no #root element');
    createRoot(container, {
      onUncaughtError: (error) => console.error('The page failed', error),
    }).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  } catch (error) {
    console.error('The page could not start', error);
  }
}
