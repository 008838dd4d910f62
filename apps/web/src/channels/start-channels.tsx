import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles/channels.scss';
import { ChannelsApp } from './channels-app';
import { showProductIcon } from '../shared/product-icon';

/** Mounts the channels page; like the page, a failure to start is only logged. */
export function startChannels(container: HTMLElement | null): void {
  showProductIcon();
  try {
    if (container === null) throw new Error('The channels page has no #root element');
    createRoot(container, {
      onUncaughtError: (error) => console.error('The channels page failed', error),
    }).render(
      <StrictMode>
        <ChannelsApp />
      </StrictMode>,
    );
  } catch (error) {
    console.error('The channels page could not start', error);
  }
}
