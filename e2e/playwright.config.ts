import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_LAUNCH_OPTIONS } from './support/chromium';

/**
 * End-to-end scenarios in the installed Chromium against the built server
 * (`npm run build`, then `npx playwright test -c e2e/playwright.config.ts`).
 */
export default defineConfig({
  testDir: './specs',
  globalSetup: './support/global-setup.ts',
  fullyParallel: false,
  // The scenarios wait on the page and the server more than they compute (about 250 CPU-seconds in
  // 310 s with two workers): a third keeps the cores busier (docs/benchmarks.md, "The test suite").
  workers: 3,
  // A scenario that fails runs once more, recording its trace (`trace` below), and the run still
  // fails: a scenario that passes only on its retry is flaky, and flaky fails the run.
  retries: 1,
  failOnFlakyTests: true,
  // A deadline as a safety net only (each step waits on what the page shows): beside the type
  // check, lint and the unit tests a journey of the console took over 20 s on this 2-core machine.
  timeout: 45_000,
  // A safety net as well: each assertion ends as soon as it holds; under the type check and the
  // server's suite a console sign-in took more than 5 s to show its answer.
  expect: { timeout: 15_000 },
  forbidOnly: Boolean(process.env.CI),
  reporter: [['list']],
  outputDir: '../test-results/e2e',
  use: {
    baseURL: process.env.DEA_E2E_BASE_URL,
    reducedMotion: 'reduce',
    // Recorded on the retry only: recording every scenario's trace cost a fifth of the scenarios'
    // CPU (76.5 against 59.4 CPU-seconds for three files; docs/benchmarks.md).
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
    locale: 'en-US',
    timezoneId: 'UTC',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: CHROMIUM_LAUNCH_OPTIONS,
      },
    },
  ],
});
