import { expect, test, type Page } from '@playwright/test';
import { startOidcProvider, type TestOidcProvider } from '../../apps/server/src/testing/oidc-provider';
import { dea } from '../support/console';
import { expectNoAxeViolations } from '../support/scenarios';
import { freePort, type RunningServer, startServer } from '../support/start-server';

// The channels page's strong sign-in through the organisation's identity provider, in
// Chromium against a real OpenID provider (oidc-provider) started here, with its own login and
// consent pages: the ID token must name the person of the password's session and show a second
// factor.
let server: RunningServer;
let provider: TestOidcProvider;
let channelsUrl: string;
const PASSWORD = 'channels provider password';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  channelsUrl = `${origin}/dea/channels/`;
  provider = await startOidcProvider(`${origin}/dea/api/registration/oidc/callback`);
  provider.people.set('quinn', { groups: [], amr: ['pwd', 'otp'], name: 'Quinn Factor' });
  provider.people.set('rory', { groups: [], amr: ['pwd'], name: 'Rory Password' });
  server = await startServer({
    PORT: String(port),
    DEA_CHANNELS_URL: channelsUrl,
    DEA_OIDC_ISSUER: provider.issuer,
    DEA_OIDC_CLIENT_ID: provider.clientId,
    DEA_OIDC_CLIENT_SECRET_FILE: provider.clientSecretFile,
  });
  for (const name of ['quinn', 'rory']) {
    dea(
      server,
      ['user', 'add', '--username', name, '--full-name', `${name} Person`, '--password-stdin'],
      `${PASSWORD}\n`,
    );
  }
});

test.afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

async function signIn(page: Page, username: string): Promise<void> {
  const answer = await page.request.post(`${server.baseUrl}/login/api/session`, {
    data: { username, password: PASSWORD },
  });
  expect(answer.ok()).toBe(true);
}

/** The provider's own pages: its login form (any password), then its consent. */
async function throughTheProvider(page: Page, login: string): Promise<void> {
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('a password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

const signInHeading = (page: Page) => page.getByRole('heading', { level: 1, name: 'Confirm it is you' });
const channelsHeading = (page: Page) =>
  page.getByRole('heading', { level: 1, name: 'Your emergency channels' });

async function startAtTheProvider(page: Page, username: string): Promise<void> {
  await signIn(page, username);
  await page.goto(channelsUrl);
  await expect(signInHeading(page)).toBeVisible();
  const provided = page
    .getByTestId('way-provider')
    .getByRole('link', { name: 'Sign in with your organisation' });
  await provided.focus();
  await page.keyboard.press('Enter');
}

test("the organisation's sign-in with a second factor opens the page for the person of the password's session", async ({
  page,
}) => {
  await startAtTheProvider(page, 'quinn');
  await throughTheProvider(page, 'quinn');
  await expect(channelsHeading(page)).toBeVisible();
  expect(page.url()).toBe(channelsUrl);
  await expectNoAxeViolations(page);
});

test('a sign-in at the provider without a second factor opens nothing and says why', async ({ page }) => {
  await startAtTheProvider(page, 'rory');
  await throughTheProvider(page, 'rory');
  await expect(signInHeading(page)).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('did not confirm it is you with a second factor');
  await expect(page.getByTestId('channel-list')).toHaveCount(0);
  await expectNoAxeViolations(page);
});

test("another person's sign-in at the provider opens nothing for the password's session", async ({
  page,
}) => {
  await startAtTheProvider(page, 'rory');
  await throughTheProvider(page, 'quinn');
  await expect(signInHeading(page)).toBeVisible();
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByTestId('channel-list')).toHaveCount(0);
});
