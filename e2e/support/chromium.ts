import type { LaunchOptions } from '@playwright/test';

/**
 * Debian's Chromium, never a downloaded browser. Background networking is off: this machine's
 * network is closed, and Chromium's own connections would be refused by the dozen.
 */
export const CHROMIUM_LAUNCH_OPTIONS: LaunchOptions = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
