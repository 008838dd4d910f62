import { expect, test } from '@playwright/test';
import { startTlsProxy } from '../support/nginx';
import { clickLogoutInMenu, expectCodeShown, fillSignInForm, signInForm } from '../support/scenarios';
import { startServer } from '../support/start-server';

/**
 * Behind nginx terminating TLS, as operators run it: the whole way from the page's link to the
 * code and back to login after logout, with the server trusting the proxy's X-Forwarded-Proto
 * (DEA_TRUST_PROXY) and without (ADR 0040: the return address never leaves TLS).
 */

const SETUPS: [string, Record<string, string>][] = [
  ['without DEA_TRUST_PROXY', {}],
  ['with DEA_TRUST_PROXY=loopback', { DEA_TRUST_PROXY: 'loopback' }],
];

for (const [setup, settings] of SETUPS) {
  test(`behind a TLS-terminating nginx ${setup}, "Back to login" leads to the login form over https`, async ({
    browser,
  }) => {
    // Two processes of its own and a browser context: a safety net for a loaded machine.
    test.slow();
    const server = await startServer(settings);
    const proxy = await startTlsProxy(server.baseUrl);
    const context = await browser.newContext({ baseURL: proxy.baseUrl, ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      await page.goto('/dea/');
      await expect(signInForm(page)).toBeVisible();
      expect(new URL(page.url()).protocol).toBe('https:');
      await fillSignInForm(page, 'demo-off');
      await expect(page).toHaveURL(`${proxy.baseUrl}/dea/`);
      await expect(page.getByTestId('not-authorized')).toBeVisible();

      await clickLogoutInMenu(page);
      await page.getByRole('dialog', { name: 'Log out' }).getByRole('button', { name: 'Log out' }).click();
      const landing = page.getByRole('dialog', { name: 'You have been logged out' });
      await expect(landing).toBeVisible();
      expect(new URL(page.url()).protocol).toBe('https:');
      const userinfo = await page.request.post('/dea/api/userinfo', { data: {} });
      expect(userinfo.status()).toBe(403);

      await landing.getByRole('button', { name: 'Back to login' }).click();
      await expect(page).toHaveURL(`${proxy.baseUrl}/login/`);
      await expect(signInForm(page)).toBeVisible();
      // And on from there: signed in again, the page shows a code.
      await fillSignInForm(page, 'demo');
      await expect(page).toHaveURL(`${proxy.baseUrl}/dea/`);
      await expectCodeShown(page);
    } finally {
      await context.close();
      await proxy.stop();
      await server.stop();
    }
  });
}
