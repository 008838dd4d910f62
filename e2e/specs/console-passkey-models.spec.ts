import { expect, test, type Page } from '@playwright/test';
import { addConsoleAccount, addVirtualAuthenticator, CONSOLE_PASSWORD, dea } from '../support/console';
import { type RunningServer, startServer } from '../support/start-server';

// DEA_CONSOLE_PASSKEY_AAGUIDS with Chromium's virtual authenticator: its attestation (asked for
// as 'direct') names its model; a server that lists another model refuses it, one that lists it
// registers it.
const CHROMIUM_VIRTUAL_AUTHENTICATOR = '01020304-0506-0708-0102-030405060708';
const ANOTHER_MODEL = 'cb69481e-8ff7-4039-93ec-0a2729a154a8';

const servers: RunningServer[] = [];

test.afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function registerThroughLink(page: Page, allowed: string): Promise<RunningServer> {
  const server = await startServer({ DEA_CONSOLE_PASSKEY_AAGUIDS: allowed });
  servers.push(server);
  const link = addConsoleAccount(server, 'kim', 'auditor', 'Kim Keys');
  await page.goto(link);
  await page.getByLabel('Console user name').fill('kim');
  await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Register a passkey' }).click();
  return server;
}

test('with allowed authenticator models, a passkey of another model is refused and one of a listed model registered', async ({
  page,
  context,
}) => {
  // Two servers of their own start within the test.
  test.setTimeout(60_000);
  await addVirtualAuthenticator(context, page);
  const strict = await registerThroughLink(page, ANOTHER_MODEL);
  await expect(page.getByTestId('console-error')).toContainText(
    'This authenticator is not one of the models allowed for the console',
  );
  const refused = dea(strict, ['audit', 'list', '--event', 'console.passkey_refused']);
  expect(refused).toContain(CHROMIUM_VIRTUAL_AUTHENTICATOR);
  expect(refused).toContain('authenticator-not-allowed');

  const allowing = await registerThroughLink(page, `${ANOTHER_MODEL},${CHROMIUM_VIRTUAL_AUTHENTICATOR}`);
  await expect(page.getByTestId('console-account')).toBeVisible();
  expect(dea(allowing, ['audit', 'list', '--event', 'console.passkey_registered'])).toContain(
    CHROMIUM_VIRTUAL_AUTHENTICATOR,
  );
});
