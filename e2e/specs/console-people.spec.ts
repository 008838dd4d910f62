import { expect, test } from '@playwright/test';
import {
  addConsoleAccount,
  addVirtualAuthenticator,
  consoleOrigin,
  expectConsoleAccessible,
  expectConsoleFitsPhone,
  signInToConsole,
} from '../support/console';
import { deliveredSince, deliveryMark, peersUrl, smsGatewaySettings } from '../support/delivery';
import { fillSignInForm } from '../support/scenarios';
import { type RunningServer, startServer } from '../support/start-server';

// An administrator administers a person from the console alone: adds a user,
// edits them, disables and enables them, and hands them a password link the user opens in the
// browser; adds a phone to a user, proven by the code that reached the SMS gateway; then adds a
// console account and a second passkey to their own account.
let server: RunningServer;
let origin: string;

test.beforeAll(async () => {
  // Text messages go to the delivery peers' gateway (support/delivery-peers.ts).
  server = await startServer(smsGatewaySettings(peersUrl()));
  origin = consoleOrigin(server);
  addConsoleAccount(server, 'petra', 'admin', 'Petra People');
  addConsoleAccount(server, 'pia', 'admin', 'Pia Passkeys');
  addConsoleAccount(server, 'paula', 'admin', 'Paula Phones');
});

test.afterAll(async () => {
  await server?.stop();
});

test('an administrator adds, edits, disables and enables a user, and the user sets a password by the link', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await signInToConsole(page, origin, 'petra');
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'People' })).toBeVisible();
  await expectConsoleAccessible(page);

  const add = page.getByRole('form', { name: 'Add a user' });
  await add.getByLabel('User name').fill('quinn');
  await add.getByLabel('Full name').fill('Quinn Quest');
  await add.getByRole('button', { name: 'Add the user' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Quinn Quest (quinn)' })).toBeVisible();
  await expectConsoleAccessible(page);

  const edit = page.getByRole('form', { name: 'Name, language and time zone' });
  await edit.getByLabel('Full name').fill('Quinn Questor');
  await edit.getByLabel('Time zone').fill('Europe/Vienna');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('person-done')).toHaveText('Saved.');
  await expect(page.getByRole('heading', { level: 1, name: 'Quinn Questor (quinn)' })).toBeVisible();

  await page.getByRole('button', { name: 'Disable' }).click();
  await expect(page.getByTestId('person-state')).toContainText('disabled');
  await page.getByRole('button', { name: 'Enable' }).click();
  await expect(page.getByTestId('person-state')).toContainText('enabled');

  await page.getByRole('button', { name: 'Link to set a password' }).click();
  const link = (await page.getByTestId('password-link-url').textContent()) ?? '';
  expect(link).toMatch(/#reset=/);
  await expectConsoleAccessible(page);
  await page.setViewportSize({ width: 390, height: 800 });
  await expectConsoleFitsPhone(page);

  // The user, in the same browser as anyone would open a link.
  const user = await context.newPage();
  await user.goto(link);
  await user.getByLabel('New password', { exact: true }).fill('quinn sets this one');
  await user.keyboard.press('Enter');
  await expect(user.getByRole('alert')).toContainText('Your password is set.');
  await user.goto(`${origin}/login/`);
  await fillSignInForm(user, 'quinn', 'quinn sets this one');
  await expect(user).toHaveURL(`${origin}/dea/`);
});

test("an administrator adds a user's phone, proven by the code the gateway delivered to it", async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await signInToConsole(page, origin, 'paula');
  await page.goto(`${origin}/admin/#/people`);
  const add = page.getByRole('form', { name: 'Add a user' });
  await add.getByLabel('User name').fill('rosa');
  await add.getByLabel('Full name').fill('Rosa Rufer');
  await add.getByRole('button', { name: 'Add the user' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Rosa Rufer (rosa)' })).toBeVisible();
  await expect(page.getByText('No channels.')).toBeVisible();

  const mark = await deliveryMark();
  const channel = page.getByRole('form', { name: 'Add or change a channel' });
  await channel.getByLabel('Kind of channel').selectOption({ label: 'Work mobile' });
  await channel.getByLabel('Phone number or e-mail address').fill('+49 170 5550188');
  await channel.getByRole('button', { name: 'Send a code' }).click();
  await expect(page.getByTestId('person-channels-done')).toContainText('A code was sent to');
  // The address is no channel yet: it waits for its code.
  await expect(page.getByText('No channels.')).toBeVisible();
  const pending = page.getByTestId('person-channel-pending');
  await expect(pending).toContainText('waiting for its code');
  await expectConsoleAccessible(page);

  // What the person reads out: the code that reached the gateway for that number.
  let code: string | undefined;
  await expect
    .poll(async () => {
      const sms = (await deliveredSince(mark)).find(
        (message) => message.via === 'sms' && message.to === '+491705550188',
      );
      code = /\b\d{8}\b/.exec(sms?.text ?? '')?.[0];
      return code;
    })
    .toBeDefined();
  await pending.getByLabel('Code the person reads out').fill(code ?? '');
  await pending.getByRole('button', { name: 'Confirm the address' }).click();
  await expect(page.getByTestId('person-channels-done')).toHaveText(
    "The address is the channel now; the person's other channels were told.",
  );
  await expect(page.getByTestId('person-channels')).toContainText('Work mobile');
  await expect(page.getByTestId('person-channel-pending')).toHaveCount(0);
  await expectConsoleAccessible(page);
  await page.setViewportSize({ width: 390, height: 800 });
  await expectConsoleFitsPhone(page);
  await expectConsoleAccessible(page);
});

test('an administrator adds a console account and a second passkey to their own account, and names it', async ({
  page,
  context,
}) => {
  // Two devices: the one pia signs in with, then another one for the second passkey (an
  // authenticator refuses a second credential for an account it already holds).
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const device = {
    options: {
      protocol: 'ctap2' as const,
      transport: 'internal' as const,
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  };
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', device);
  await signInToConsole(page, origin, 'pia');
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  await cdp.send('WebAuthn.addVirtualAuthenticator', device);
  await page.goto(`${origin}/admin/#/people`);
  const accounts = page.getByTestId('console-accounts');
  await expect(accounts).toContainText('Pia Passkeys (pia)');

  const add = page.getByRole('form', { name: 'Add a console account' });
  await add.getByLabel('Console user name').fill('hugo');
  await add.getByLabel('Display name').fill('Hugo Helpdesk');
  await add.getByLabel('Password').fill('a console password');
  await add.getByRole('button', { name: 'Add the account' }).click();
  await expect(page.getByTestId('enrolment-link-url')).toContainText('#enrol=');
  await expect(accounts).toContainText('Hugo Helpdesk (hugo)');

  // The virtual authenticator holds pia's first passkey; it makes a second one.
  await page.getByRole('button', { name: 'Add a passkey to my account' }).click();
  await expect(page.getByTestId('accounts-done')).toHaveText('A passkey was added to your account.');
  const second = page.getByRole('form', { name: 'Passkey 2 of pia' });
  await expect(second).toBeVisible();
  await second.getByLabel('Name of passkey 2').fill('Laptop');
  await second.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('accounts-done')).toHaveText('Saved.');
  await expectConsoleAccessible(page);
  await page.setViewportSize({ width: 390, height: 800 });
  await expectConsoleFitsPhone(page);
});
