import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles/login.scss';
import { LoginApp } from './login-app';
import { prefetchPageOnceIdle } from './prefetch-page';

/** Mounts the login application; like the page, a failure to start is only logged. */
export function startLogin(container: HTMLElement | null): void {
  try {
    if (container === null) throw new Error('The login application has no #root element');
    createRoot(container, {
      onUncaughtError: (error) => console.error('The login application failed', error),
    }).render(
      <StrictMode>
        <LoginApp />
      </StrictMode>,
    );
    prefetchPageOnceIdle();
  } catch (error) {
    console.error('The login application could not start', error);
  }
}
