import { expect, test, type Page, type Route } from '@playwright/test';
import {
  codeIn,
  type DeliveredMessage,
  deliveredSince,
  deliveryMark,
  FAILING_SMS_RECIPIENT,
  holdsCode,
  SMS_GATEWAY_AUTHORIZATION,
  VOICE_GATEWAY_AUTHORIZATION,
  X_API_TOKEN,
} from '../support/delivery';
import {
  envelope,
  envelopeError,
  expectFitsNarrowPhone,
  expectNoAxeViolations,
  goToPage,
  signInAs,
  withoutStartupAnswers,
} from '../support/scenarios';

// The server delivers to the test's own SMTP server and HTTP gateway (support/delivery-peers.ts).
// These scenarios are the only ones that send codes to 'demo-channel'; they run in order in one
// worker. The demo policy lets a user hold 5 unused codes: they leave 4 (the failed send's code is
// invalidated), so keep any new scenario that sends within that.

/** Every channel of 'demo-channel' as the peers see it: phones in international form. */
const EVERY_RECIPIENT = [
  '+491705550112',
  FAILING_SMS_RECIPIENT,
  'chris.channel@example.com',
  'chris@example.org',
  '+49305550156',
  '+49895550178',
  '@chris_channel',
  '@chrisc',
];

const resultModal = (page: Page) => page.getByRole('dialog', { name: 'Message' });

/** Opens the dropdown of a channel type and chooses a recipient in it, labelled work or personal. */
async function chooseRecipient(
  page: Page,
  type: string,
  masked: string,
  kind: 'Work' | 'Personal' = 'Work',
): Promise<void> {
  await page.getByRole('button', { name: type }).click();
  // The two X handles of the demo user mask alike ('@ch***'): the label tells them apart.
  await page.getByRole('menuitem', { name: `${kind} ${masked}`, exact: true }).click();
}

async function expectGreenResult(page: Page, masked: string): Promise<void> {
  const success = resultModal(page).getByTestId('send-success');
  await expect(success).toHaveText(`Your emergency code has been sent to ${masked}.`);
  await expect(success).toHaveClass(/\btext-success\b/);
  await expect(resultModal(page).getByTestId('send-error')).toHaveCount(0);
}

/** The messages to `to` after the mark that carry a code. */
async function codeMessagesTo(mark: number, to: string): Promise<DeliveredMessage[]> {
  return (await deliveredSince(mark)).filter(
    (message) => message.to === to && codeIn(message.text) !== undefined,
  );
}

/** Waits until the one message with a code has reached `to`; answers it and its code. */
async function expectCodeArrived(
  mark: number,
  via: DeliveredMessage['via'],
  to: string,
): Promise<{ message: DeliveredMessage; code: string }> {
  await expect
    .poll(async () => (await codeMessagesTo(mark, to)).map((message) => message.via), {
      message: `a code reaches ${to} by ${via}`,
    })
    .toEqual([via]);
  const [message] = await codeMessagesTo(mark, to);
  const code = message === undefined ? undefined : codeIn(message.text);
  if (message === undefined || code === undefined) throw new Error(`no code reached ${to}`);
  expect(code).toMatch(/^[2-9A-HJ-NP-Z]{10}$/);
  return { message, code };
}

/** The page says where the code went, never what it is. */
async function expectCodeNotOnPage(page: Page, code: string): Promise<void> {
  await expect(page.locator('body')).not.toContainText(code);
  expect(await page.content()).not.toContain(code);
}

/**
 * Every other channel of the user is told where the code went, and no message but the code's own
 * holds the code.
 */
async function expectNoticesWithoutCode(mark: number, sentTo: string, masked: string, code: string) {
  const noticed = async () =>
    [
      ...new Set(
        (await deliveredSince(mark))
          .filter((message) => message.text.includes(`sent to ${masked} at`))
          .map((message) => message.to),
      ),
    ].sort();
  await expect
    .poll(noticed, { message: 'a notice reaches every other channel' })
    .toEqual(EVERY_RECIPIENT.filter((recipient) => recipient !== sentTo).sort());
  const holdingTheCode = (await deliveredSince(mark)).filter((message) =>
    [message.subject, message.text, message.html].some((part) => holdsCode(part, code)),
  );
  expect(holdingTheCode.map((message) => message.to)).toEqual([sentTo]);
}

async function closeResult(page: Page): Promise<void> {
  await resultModal(page).getByRole('button', { name: 'OK' }).click();
  await expect(resultModal(page)).toHaveCount(0);
}

test.beforeEach(async ({ page }) => {
  await signInAs(page, 'demo-channel');
});

test('a code is sent to a chosen e-mail address and arrives at the SMTP server', async ({ page }) => {
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
  await expect(recipients).toHaveText(['Work c***@e***.com', 'Personal c***@e***.org']);
  const masked = 'c***@e***.com';
  await expectNoAxeViolations(page);
  const mark = await deliveryMark();
  await recipients.first().click();

  await expect(page.getByRole('progressbar', { name: 'Sending your emergency code…' })).toBeVisible();
  releaseSend();

  await expectGreenResult(page, masked);
  await expect(page.getByRole('progressbar')).toHaveCount(0);
  await expectNoAxeViolations(page);

  const { message, code } = await expectCodeArrived(mark, 'smtp', 'chris.channel@example.com');
  expect(message.subject).toBe('Your emergency code');
  expect(message.text).toMatch(new RegExp(`^Your emergency code is ${code}\\. It is valid until .+ UTC\\.`));
  expect(message.html).toContain(`<code>${code}</code>`);
  expect(message.headers.from).toContain('dea@e2e.example');
  expect(message.headers.to).toBe('chris.channel@example.com');
  await expectCodeNotOnPage(page, code);
  await expectNoticesWithoutCode(mark, 'chris.channel@example.com', masked, code);

  await closeResult(page);
  await page.getByRole('button', { name: 'Social messaging' }).click();
  await expect(page.getByRole('menuitem').first()).toBeVisible();
  await expectFitsNarrowPhone(page);
});

test('a text message goes to the SMS gateway with the full number and the code', async ({ page }) => {
  await goToPage(page);
  const mark = await deliveryMark();
  await chooseRecipient(page, 'Text message', '+49 *** ***12');
  await expectGreenResult(page, '+49 *** ***12');

  const { message, code } = await expectCodeArrived(mark, 'sms', '+491705550112');
  expect(message.status).toBe(200);
  expect(message.headers.authorization).toBe(SMS_GATEWAY_AUTHORIZATION);
  expect(message.headers['content-type']).toBe('application/json');
  expect(message.headers['idempotency-key']).toMatch(/\S/);
  expect(message.text).toMatch(new RegExp(`^Your emergency code is ${code}\\.`));
  await expectCodeNotOnPage(page, code);
  await expectNoAxeViolations(page);
  await expectNoticesWithoutCode(mark, '+491705550112', '+49 *** ***12', code);
  await closeResult(page);
});

test('a voice call goes to the voice gateway and spells the code twice', async ({ page }) => {
  await goToPage(page);
  const mark = await deliveryMark();
  await chooseRecipient(page, 'Voice call', '+49 *** ***56');
  await expectGreenResult(page, '+49 *** ***56');

  const { message, code } = await expectCodeArrived(mark, 'voice', '+49305550156');
  const spelled = [...code].join(', ');
  expect(message.text).toBe(`This is your emergency code: ${spelled}. Once again: ${spelled}. Goodbye.`);
  expect(message.status).toBe(201);
  expect(message.headers.authorization).toBe(VOICE_GATEWAY_AUTHORIZATION);
  expect(message.headers['content-type']).toBe('application/x-www-form-urlencoded');
  await expectCodeNotOnPage(page, code);
  await expectNoAxeViolations(page);
  await expectNoticesWithoutCode(mark, '+49305550156', '+49 *** ***56', code);
  await closeResult(page);
});

test('a direct message goes through the X API to the chosen handle', async ({ page }) => {
  await goToPage(page);
  const mark = await deliveryMark();
  await chooseRecipient(page, 'Social messaging', '@ch***');
  await expectGreenResult(page, '@ch***');

  const { message, code } = await expectCodeArrived(mark, 'dm', '@chris_channel');
  expect(message.status).toBe(201);
  expect(message.headers.authorization).toBe(`Bearer ${X_API_TOKEN}`);
  expect(message.text).toMatch(new RegExp(`^Your emergency code is ${code}\\.`));
  await expectCodeNotOnPage(page, code);
  await expectNoAxeViolations(page);
  await expectNoticesWithoutCode(mark, '@chris_channel', '@ch***', code);
  await closeResult(page);
});

test('a gateway that fails gives the red message of error 150, after retries', async ({ page }) => {
  await goToPage(page);
  const mark = await deliveryMark();
  await chooseRecipient(page, 'Text message', '+49 *** ***34', 'Personal');

  const error = resultModal(page).getByTestId('send-error');
  await expect(error).toHaveText(
    'The code could not be delivered. Please try again later or choose another channel.',
  );
  await expect(error).toHaveClass(/\balert-danger\b/);
  await expect(resultModal(page).getByTestId('send-success')).toHaveCount(0);
  await expectNoAxeViolations(page);

  // The gateway answered 500 to the first attempt and to both retries (DEA_DELIVERY_RETRIES=2),
  // all with the same code and idempotency key.
  await expect.poll(async () => (await codeMessagesTo(mark, FAILING_SMS_RECIPIENT)).length).toBe(3);
  const attempts = await codeMessagesTo(mark, FAILING_SMS_RECIPIENT);
  expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500]);
  expect(new Set(attempts.map((attempt) => attempt.headers['idempotency-key'])).size).toBe(1);
  const codes = new Set(attempts.map((attempt) => codeIn(attempt.text)));
  expect(codes.size).toBe(1);
  const [code] = codes;
  expect(code).toMatch(/^[2-9A-HJ-NP-Z]{10}$/);
  await expectCodeNotOnPage(page, code ?? '');
  await closeResult(page);
});

test("a failed send shows the server's message", async ({ page }) => {
  await page.route(
    '**/dea/api/tempPass/createAndSend',
    envelopeError(150, 'The code could not be delivered.'),
  );
  await goToPage(page);
  await page.getByRole('button', { name: 'Text message' }).click();
  await page.getByRole('menuitem').first().click();

  const result = resultModal(page);
  await expect(result.getByTestId('send-error')).toHaveText('The code could not be delivered.');
  await expect(result.getByTestId('send-success')).toHaveCount(0);
  await expectNoAxeViolations(page);
});

test('a user without channels is told so', async ({ page }) => {
  await withoutStartupAnswers(page);
  await page.route('**/dea/api/user/queryAvailableChannels', envelope({}));
  await goToPage(page);
  await expect(page.getByTestId('no-channel')).toHaveText(
    'No channel is registered for you to receive an emergency code. Please contact your administrator.',
  );
  await expect(page.getByRole('button', { name: 'E-mail' })).toHaveCount(0);
  await expectNoAxeViolations(page);
});

test('on a 360 px phone every recipient list opens right under its own button, inside the screen', async ({
  page,
}) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await goToPage(page);
  for (const type of ['Text message', 'E-mail', 'Voice call', 'Social messaging']) {
    const button = page.getByRole('button', { name: type });
    await button.click();
    const list = page.getByRole('menu');
    await expect(list).toBeVisible();
    const [under, over] = [await list.boundingBox(), await button.boundingBox()];
    if (under === null || over === null) throw new Error(`no box for ${type}`);
    expect(Math.abs(under.y - (over.y + over.height)), type).toBeLessThan(12);
    expect(under.x, type).toBeGreaterThanOrEqual(0);
    expect(under.x + under.width, type).toBeLessThanOrEqual(360);
    await page.keyboard.press('Escape');
  }
  await expectNoAxeViolations(page);
});
