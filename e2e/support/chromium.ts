import type { LaunchOptions } from '@playwright/test';

/**
 * The scenarios' browser: Debian's Chromium headless shell (package chromium-headless-shell),
 * never a downloaded browser. It is Chromium's engine without the full browser's user interface,
 * the browser Playwright itself runs headless tests in: the 70 scenarios took 208 CPU-seconds of
 * it against 410 of the full `chromium` (docs/benchmarks.md). Background networking is off: this
 * machine's network is closed, and Chromium's own connections would be refused by the dozen.
 */
export const CHROMIUM_LAUNCH_OPTIONS: LaunchOptions = {
  executablePath: '/usr/bin/chromium-headless-shell',
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

/**
 * Debian's full Chromium (package chromium), for the page-speed benchmark (e2e/bench/page-speed.ts):
 * its figures in docs/benchmarks.md were all taken in it, and Lighthouse drives it as a person's
 * browser. Not needed by `npm test`.
 */
export const FULL_CHROMIUM_LAUNCH_OPTIONS: LaunchOptions = {
  ...CHROMIUM_LAUNCH_OPTIONS,
  executablePath: '/usr/bin/chromium',
};
