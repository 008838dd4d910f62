import { expect, test, type Route } from '@playwright/test';
import {
  envelope,
  envelopeError,
  expectFitsNarrowPhone,
  expectNoAxeViolations,
  goToPage,
  signInAs,
} from '../support/scenarios';

test.beforeEach(async ({ page }) => {
  await signInAs(page, 'demo-channel');
});

test('a code is sent to a chosen e-mail address', async ({ page }) => {
  let releaseSend: () => void = () => undefined;
  const sendMayGo = new Promise<void>((resolve) => (releaseSend = resolve));
  await page.route('**/dea/api/tempPass/createAndSend', async (route: Route) => {
    await sendMayGo;
    await route.continue();
  });
  await goToPage(page);

  await expect(page.getByText('Choose where to send your emergency code:')).toBeVisible();
  for (const type of ['Text message', 'E-mail', 'Voice call', 'Social messaging']) {
    await expect(page.getByRole('button', { name: type })).toBeVisible();
  }
  await expectNoAxeViolations(page);

  await page.getByRole('button', { name: 'E-mail' }).click();
  const recipients = page.getByRole('menuitem');
  await expect(recipients).toHaveCount(2);
  await expect(recipients.first()).not.toContainText('chris.channel@example.com');
  const masked = (await recipients.first().textContent()) ?? '';
  await expectNoAxeViolations(page);
  await recipients.first().click();

  await expect(page.getByRole('progressbar', { name: 'Sending your emergency code…' })).toBeVisible();
  releaseSend();

  const result = page.getByRole('dialog', { name: 'Message' });
  await expect(result.getByTestId('send-success')).toHaveText(
    `Your emergency code has been sent to ${masked}.`,
  );
  await expect(page.getByRole('progressbar')).toHaveCount(0);
  await expectNoAxeViolations(page);
  await result.getByRole('button', { name: 'OK' }).click();
  await expect(result).toHaveCount(0);

  await page.getByRole('button', { name: 'Social messaging' }).click();
  await expect(page.getByRole('menuitem').first()).toBeVisible();
  await expectFitsNarrowPhone(page);
});

test("a failed send shows the server's message", async ({ page }) => {
  await page.route(
    '**/dea/api/tempPass/createAndSend',
    envelopeError(150, 'The code could not be delivered.'),
  );
  await goToPage(page);
  await page.getByRole('button', { name: 'Text message' }).click();
  await page.getByRole('menuitem').first().click();

  const result = page.getByRole('dialog', { name: 'Message' });
  await expect(result.getByTestId('send-error')).toHaveText('The code could not be delivered.');
  await expect(result.getByTestId('send-success')).toHaveCount(0);
  await expectNoAxeViolations(page);
});

test('a user without channels is told so', async ({ page }) => {
  await page.route('**/dea/api/user/queryAvailableChannels', envelope({}));
  await goToPage(page);
  await expect(page.getByTestId('no-channel')).toHaveText(
    'No channel is registered for you to receive an emergency code. Please contact your administrator.',
  );
  await expect(page.getByRole('button', { name: 'E-mail' })).toHaveCount(0);
  await expectNoAxeViolations(page);
});
