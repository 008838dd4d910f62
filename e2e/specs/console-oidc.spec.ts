import { expect, test, type Page } from '@playwright/test';
import { startOidcProvider, type TestOidcProvider } from '../../apps/server/src/testing/oidc-provider';
import { expectConsoleAccessible } from '../support/console';
import { freePort, type RunningServer, startServer } from '../support/start-server';

// The console's sign-in through the organisation's OpenID provider, in Chromium: a real provider
// (oidc-provider) started here, with its own login and consent pages.
let server: RunningServer;
let provider: TestOidcProvider;
let origin: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const port = await freePort();
  // The console is reached as localhost, like the passkey specs; the provider as 127.0.0.1.
  origin = `http://localhost:${port}`;
  provider = await startOidcProvider(`${origin}/dea/admin-api/oidc/callback`);
  provider.people.set('iris', { groups: ['staff', 'dea-admins'], amr: ['pwd', 'otp'], name: 'Iris Idp' });
  provider.people.set('noah', { groups: ['dea-admins'], amr: ['pwd'], name: 'Noah Nofactor' });
  server = await startServer({
    PORT: String(port),
    DEA_CONSOLE_URL: `${origin}/admin/`,
    DEA_CONSOLE_OIDC_ISSUER: provider.issuer,
    DEA_CONSOLE_OIDC_CLIENT_ID: provider.clientId,
    DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: provider.clientSecretFile,
    DEA_CONSOLE_OIDC_PROVIDER_NAME: 'Example SSO',
    DEA_CONSOLE_OIDC_ROLES: JSON.stringify({ 'dea-admins': 'admin', 'it-helpdesk': 'helpdesk' }),
  });
});

test.afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** The provider's own pages: its login form (any password), then its consent. */
async function throughTheProvider(page: Page, login: string): Promise<void> {
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('a password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('signs in through the provider with the keyboard, with the role of the groups', async ({ page }) => {
  await page.goto(`${origin}/admin/`);
  const signInWith = page.getByRole('link', { name: 'Sign in with Example SSO' });
  await expect(signInWith).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Or with a console account and passkey' })).toBeVisible();
  await expectConsoleAccessible(page);
  await signInWith.focus();
  await page.keyboard.press('Enter');
  await throughTheProvider(page, 'iris');

  await expect(page.getByTestId('console-account')).toContainText('Iris Idp');
  const nav = page.getByRole('navigation', { name: 'Console' });
  await expect(nav.getByRole('link').first()).toBeVisible();
  await expect(nav).toContainText('Audit log');
  expect(new URL(page.url()).hash).toBe('');
  await expectConsoleAccessible(page);
});

test('a sign-in without a second factor is refused with the reason, right to left in Arabic', async ({
  page,
}) => {
  await page.goto(`${origin}/admin/`);
  await page.evaluate(() => window.localStorage.setItem('dea.console.language', 'ar'));
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('link', { name: 'تسجيل الدخول عبر Example SSO' }).click();
  await throughTheProvider(page, 'noah');

  await expect(page.getByRole('alert')).toContainText('عاملًا ثانيًا');
  await expect(page.getByTestId('console-account')).toHaveCount(0);
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expectConsoleAccessible(page);
});
