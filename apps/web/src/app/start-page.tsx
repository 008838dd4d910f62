import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles/page.scss';
import { App } from './app';
import { showProductIcon } from '../shared/product-icon';

/** Mounts the page. A failure to start is only written to the console (spec section 8). */
export function startPage(container: HTMLElement | null): void {
  showProductIcon();
  try {
    if (container === null) throw new Error('The page has no #root element');
    const root = createRoot(container, {
      onUncaughtError: (error) => console.error('The page failed', error),
    });
    // The first render as a transition: React renders it in slices of a few milliseconds,
    // yielding to the browser between them, where one render would hold a slow phone's main
    // thread for a long task (Lighthouse's total blocking time).
    startTransition(() => {
      root.render(
        <StrictMode>
          <App />
        </StrictMode>,
      );
    });
  } catch (error) {
    console.error('The page could not start', error);
  }
}
