import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles/page.scss';
import { LoginApp } from './login-app';
import { showProductIcon } from '../shared/product-icon';
import { prefetchPageOnceIdle } from './prefetch-page';

/** Mounts the login application; like the page, a failure to start is only logged. */
export function startLogin(container: HTMLElement | null): void {
  showProductIcon();
  try {
    if (container === null) throw new Error('The login application has no #root element');
    const root = createRoot(container, {
      onUncaughtError: (error) => console.error('The login application failed', error),
    });
    // The first render as a transition: React renders it in slices of a few milliseconds,
    // yielding to the browser between them, where one render would hold a slow phone's main
    // thread for a long task (Lighthouse's total blocking time).
    startTransition(() => {
      root.render(
        <StrictMode>
          <LoginApp />
        </StrictMode>,
      );
    });
    prefetchPageOnceIdle();
  } catch (error) {
    console.error('The login application could not start', error);
  }
}
