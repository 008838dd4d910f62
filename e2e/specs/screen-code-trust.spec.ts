import { expect, test, type Page } from '@playwright/test';
import {
  addConsoleAccount,
  addVirtualAuthenticator,
  consoleOrigin,
  dea,
  signInToConsole,
} from '../support/console';
import { code, expectNoAxeViolations, goToPage } from '../support/scenarios';
import { type RunningServer, startServer } from '../support/start-server';

// Codes on screen only with a reason to trust, in Chromium as a person meets
// them: the browser reaches the server from 127.0.0.1, outside the group's trusted network, so the
// page offers the person's channels; once a registration link opened a session in this browser, it
// is a remembered device and the code is shown.
let server: RunningServer;
const PASSWORD = 'a trusted password';

test.beforeAll(async () => {
  server = await startServer();
  dea(
    server,
    ['user', 'add', '--username', 'tamsin', '--full-name', 'Tamsin Trust', '--password-stdin'],
    `${PASSWORD}\n`,
  );
  dea(server, ['group', 'add', '--name', 'screen-trust', '--priority', '50']);
  dea(server, ['group', 'policy', 'set', 'screen-trust', '--enable-ecode', 'true', '--delivery', 'Display']);
  dea(server, ['group', 'add-member', 'screen-trust', 'tamsin']);
  dea(server, ['channel', 'set', 'tamsin', 'email', 'tamsin@example.com']);
});

test.afterAll(async () => {
  await server?.stop();
});

/** The group's "Channel Registration" options, set by an administrator through the console's API. */
async function setTrustPolicy(page: Page): Promise<void> {
  addConsoleAccount(server, 'trust-admin', 'admin', 'Trust Admin');
  await addVirtualAuthenticator(page.context(), page);
  await signInToConsole(page, consoleOrigin(server), 'trust-admin');
  const answer = await page.evaluate(async () => {
    const token = /(?:^|; )dea_console_token=([^;]*)/.exec(document.cookie)?.[1] ?? '';
    const headers = { 'content-type': 'application/json', 'x-console-token': token };
    const groups = (await (await fetch('/dea/admin-api/admin/groups', { headers })).json()) as {
      result: { groups: { id: string; name: string }[] };
    };
    const group = groups.result.groups.find((each) => each.name === 'screen-trust');
    const response = await fetch(`/dea/admin-api/admin/groups/${group?.id}/policy`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        category: 'Channel Registration',
        options: { screenCodeTrustedNetworks: ['192.0.2.0/24'], screenCodeRememberedDeviceDays: 30 },
      }),
    });
    return (await response.json()) as { error: number };
  });
  expect(answer.error).toBe(0);
}

/** Opens a registration session in this browser with the link of `dea user registration-link`. */
async function openRegistrationWithLink(page: Page): Promise<void> {
  const printed = dea(server, ['user', 'registration-link', 'tamsin']);
  const link = /#link=([\w-]+)/.exec(printed)?.[1];
  expect(link, printed).toBeDefined();
  const opened = await page.evaluate(async (link) => {
    const token = /(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie)?.[1] ?? '';
    const response = await fetch('/dea/api/registration/open', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-XSRF-TOKEN': decodeURIComponent(token) },
      body: JSON.stringify({ link }),
    });
    return (await response.json()) as { error: number };
  }, link);
  expect(opened.error).toBe(0);
}

test('from an untrusted network the page offers the channels; in a browser a registration link opened, the code is shown', async ({
  browser,
}) => {
  const adminContext = await browser.newContext({ baseURL: consoleOrigin(server) });
  await setTrustPolicy(await adminContext.newPage());
  await adminContext.close();

  const context = await browser.newContext({ baseURL: server.baseUrl });
  const page = await context.newPage();
  const signedIn = await page.request.post('/login/api/session', {
    data: { username: 'tamsin', password: PASSWORD },
  });
  expect(signedIn.ok()).toBe(true);
  await goToPage(page);
  await expect(page.getByTestId('screen-code-untrusted')).toHaveText(
    'Codes are shown on screen only on a trusted network or on a device you used to register your channels. Choose a channel to receive your code.',
  );
  await expect(page.getByRole('button', { name: 'E-mail' })).toBeVisible();
  await expect(code(page)).toHaveCount(0);
  await expectNoAxeViolations(page);

  // Right to left, the same state in Arabic, axe-clean.
  await page.evaluate(() => window.localStorage.setItem('lang', 'ar'));
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.getByTestId('screen-code-untrusted')).toContainText('شبكة موثوقة');
  await expectNoAxeViolations(page);
  await page.evaluate(() => window.localStorage.setItem('lang', 'en'));

  await openRegistrationWithLink(page);
  const device = (await context.cookies()).find((cookie) => cookie.name === 'dea_device');
  expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dea/' });
  await page.reload();
  await expect(code(page)).toHaveText(/\S{6,}/);
  await expect(page.getByTestId('screen-code-untrusted')).toHaveCount(0);
  await expectNoAxeViolations(page);

  // The person forgets their remembered browsers on the channels page (the registration session
  // is still open): this one is no longer trusted, and a new tab gets no code on screen.
  await page.goto('/dea/channels/');
  const devices = page.getByTestId('remembered-devices');
  await devices.getByRole('button', { name: 'Forget all remembered browsers' }).click();
  await expect(page.getByTestId('channels-done')).toHaveText(
    'No browser of yours is remembered any more, this one included.',
  );
  expect((await context.cookies()).find((cookie) => cookie.name === 'dea_device')).toBeUndefined();
  const newTab = await context.newPage();
  await goToPage(newTab);
  await expect(newTab.getByTestId('screen-code-untrusted')).toBeVisible();
  await expect(code(newTab)).toHaveCount(0);
  await context.close();
});
