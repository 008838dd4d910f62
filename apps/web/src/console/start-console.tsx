import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles/console.scss';
import { ConsoleApp } from './console-app';
import { showProductIcon } from '../shared/product-icon';

/** Mounts the console; like the page, a failure to start is only logged. */
export function startConsole(container: HTMLElement | null): void {
  showProductIcon();
  try {
    if (container === null) throw new Error('The console has no #root element');
    createRoot(container, {
      onUncaughtError: (error) => console.error('The console failed', error),
    }).render(
      <StrictMode>
        <ConsoleApp />
      </StrictMode>,
    );
  } catch (error) {
    console.error('The console could not start', error);
  }
}
