import { expect, test, type Browser, type Page } from '@playwright/test';
import { REGISTRATION_COOKIE_NAME } from '@dea/contract';
import { addVirtualAuthenticator, dea } from '../support/console';
import type { DeliveredMessage } from '../support/delivery';
import { type DeliveryPeers, startDeliveryPeers } from '../support/delivery-peers';
import { expectFitsNarrowPhone, expectNoAxeViolations } from '../support/scenarios';
import { freePort, type RunningServer, startServer } from '../support/start-server';

// The channels page as a person uses it, on a server of its own that delivers to this
// spec's own SMTP server and SMS gateway, with its channels page at its own address (the notices'
// undo links point there).
let peers: DeliveryPeers;
let server: RunningServer;
let channelsUrl: string;
const PASSWORD = 'channels page password';

/** `dea` on this spec's server, which prints links to its channels page (DEA_CHANNELS_URL). */
function deaHere(args: string[], input = ''): string {
  process.env.DEA_CHANNELS_URL = channelsUrl;
  try {
    return dea(server, args, input);
  } finally {
    delete process.env.DEA_CHANNELS_URL;
  }
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  peers = await startDeliveryPeers();
  const port = await freePort();
  channelsUrl = `http://127.0.0.1:${port}/dea/channels/`;
  server = await startServer({ ...peers.serverEnv, PORT: String(port), DEA_CHANNELS_URL: channelsUrl });
  for (const [name, mobile] of [
    ['casey', '+49 170 5550101'],
    ['devon', '+49 170 5550102'],
  ] as const) {
    deaHere(
      ['user', 'add', '--username', name, '--full-name', `${name} Person`, '--password-stdin'],
      `${PASSWORD}\n`,
    );
    deaHere(['channel', 'set', name, 'mobile', mobile]);
  }
});

test.afterAll(async () => {
  await server?.stop();
  await peers?.stop();
});

async function received(): Promise<DeliveredMessage[]> {
  const answer = await fetch(`${peers.url}/_peers/received`);
  return (await answer.json()) as DeliveredMessage[];
}

/** The eight-digit code of the last message to `to` after the mark, once it has arrived. */
async function codeTo(to: string, after: number): Promise<string> {
  let code: string | undefined;
  await expect
    .poll(
      async () => {
        const last = (await received()).filter((message) => message.seq > after && message.to === to).at(-1);
        code = /\b(\d{8})\b/.exec(last?.text ?? '')?.[1];
        return code;
      },
      { message: `a code reaches ${to}` },
    )
    .toBeDefined();
  return code ?? '';
}

const mark = async () => (await received()).reduce((last, message) => Math.max(last, message.seq), 0);

async function signIn(page: Page, username: string): Promise<void> {
  const answer = await page.request.post(`${server.baseUrl}/login/api/session`, {
    data: { username, password: PASSWORD },
  });
  expect(answer.ok()).toBe(true);
}

const channelsPage = () => channelsUrl;
const signInHeading = (page: Page) => page.getByRole('heading', { level: 1, name: 'Confirm it is you' });
const channelsHeading = (page: Page) =>
  page.getByRole('heading', { level: 1, name: 'Your emergency channels' });

async function addAndProve(page: Page, kind: string, address: string, to: string): Promise<void> {
  await page.getByLabel('Kind of channel').selectOption({ label: kind });
  await page.getByLabel('Number or address').fill(address);
  const before = await mark();
  await page.getByRole('button', { name: 'Send a code to it' }).click();
  await expect(page.getByTestId('proof-sent')).toBeVisible();
  await expect(page.getByLabel('Code', { exact: true })).toBeFocused();
  await page.keyboard.type(await codeTo(to, before));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('channels-done')).toContainText(
    'is proven. Your other channels have been told.',
  );
}

test('without a password session the page sends to the login form; a password alone shows no channels', async ({
  page,
}) => {
  await page.goto(channelsPage());
  await expect(page).toHaveURL(/\/login\/\?ep=/);
  expect(new URL(page.url()).searchParams.get('ep')).toBe(channelsPage());

  await signIn(page, 'casey');
  await page.goto(channelsPage());
  await expect(signInHeading(page)).toBeVisible();
  await expect(page.getByTestId('password-not-enough')).toContainText(
    'Your password alone does not show or change your channels',
  );
  await expect(page.getByTestId('channel-list')).toHaveCount(0);
  // No identity provider on this server: that way is not offered.
  await expect(page.getByTestId('way-provider')).toHaveCount(0);
  // The server itself refuses the list to the password's session.
  const refused = await page.evaluate(async () => {
    const token = /XSRF-TOKEN=([^;]+)/.exec(document.cookie)?.[1] ?? '';
    const answer = await fetch('/dea/api/channels/list', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-xsrf-token': decodeURIComponent(token) },
      body: '{}',
    });
    return (await answer.json()) as { error: number };
  });
  expect(refused.error).toBe(3);
  await expectNoAxeViolations(page);
});

test('a registration link opens the page; an e-mail is proven through SMTP, the other channel told with its undo link, the cooling time shown', async ({
  page,
  browser,
}) => {
  const printed = deaHere(['user', 'registration-link', 'casey']);
  const link = /https?:\/\/\S+#link=[\w-]+/.exec(printed)?.[0];
  expect(link, printed).toBeDefined();
  await signIn(page, 'casey');
  await page.goto(link ?? '');
  await expect(channelsHeading(page)).toBeVisible();
  await expect(page).toHaveURL(channelsPage());
  const mobile = page.getByTestId('channel-mobile');
  await expect(mobile).toContainText('Set by your administrator');
  await expect(mobile.getByRole('button', { name: 'Remove' })).toHaveCount(0);

  const before = await mark();
  await addAndProve(page, 'E-mail (Personal)', 'casey.home@example.org', 'casey.home@example.org');
  const fresh = page.getByTestId('channel-personalEmail');
  await expect(fresh.getByTestId('channel-state')).toContainText('New: may receive emergency codes from');
  await expectNoAxeViolations(page);

  // The notice reaches the other channel (the mobile, by SMS) with the link that undoes it.
  let undoLink: string | undefined;
  await expect
    .poll(async () => {
      const notice = (await received()).find(
        (message) =>
          message.seq > before && message.to === '+491705550101' && message.text.includes('#undo='),
      );
      undoLink = /https?:\/\/\S+#undo=[\w-]+/.exec(notice?.text ?? '')?.[0];
      return undoLink;
    })
    .toBeDefined();

  // A test message to the new address carries no code.
  const beforeTest = await mark();
  await fresh.getByRole('button', { name: 'Send a test' }).click();
  await expect(page.getByTestId('channels-done')).toContainText('A test message was sent to');
  await expect
    .poll(async () =>
      (await received())
        .filter((m) => m.seq > beforeTest && m.to === 'casey.home@example.org')
        .map((m) => m.subject),
    )
    .toEqual(['Test message from Emergency Access']);

  await undoInAnotherBrowser(browser, undoLink ?? '');
  // The undo ended the person's sessions: the page leaves through the logout (spec section 8's 401).
  await page.goto(channelsPage());
  await expect(page).toHaveURL(/\/dea\/#\/logoutLanding/);
  expect(deaHere(['channel', 'list', 'casey'])).not.toContain('casey.home@example.org');
  // The address stays blocked for casey until the help desk (here the CLI) allows it again.
  expect(deaHere(['user', 'blocked-addresses', 'casey'])).toContain('casey.home@example.org');
  expect(deaHere(['user', 'allow-addresses', 'casey'])).toContain('Allowed 1 address of casey again');
});

/** "This was not me", opened where the notice arrived: no session there. */
async function undoInAnotherBrowser(browser: Browser, undoLink: string): Promise<void> {
  const context = await browser.newContext();
  const other = await context.newPage();
  await other.goto(undoLink);
  await expect(other.getByRole('heading', { level: 1, name: 'This was not me' })).toBeVisible();
  await expect(other).toHaveURL(channelsPage());
  await expectNoAxeViolations(other);
  await other.getByRole('button', { name: 'Undo it and alert the help desk' }).click();
  await expect(other.getByTestId('undo-done')).toContainText('Your help desk has been alerted');
  // Whoever registered it knew the password: the person is told, and how to get a new one.
  await expect(other.getByTestId('undo-password')).toContainText('Someone else knows your password');
  await expectNoAxeViolations(other);
  await context.close();
}

test('a code to a proven channel opens the page; a phone is proven through the SMS gateway; axe-clean at 390 px and in Arabic', async ({
  page,
}) => {
  await signIn(page, 'devon');
  await page.goto(channelsPage());
  await expect(signInHeading(page)).toBeVisible();
  await page.getByRole('radio', { name: /\+49/ }).check();
  const before = await mark();
  await page.getByRole('button', { name: 'Send the code' }).click();
  await expect(page.getByTestId('challenge-sent')).toBeVisible();
  // The keys go where the focus is: the code's field takes it once the code is on its way.
  await expect(page.getByLabel('Code', { exact: true })).toBeFocused();
  await page.keyboard.type(await codeTo('+491705550102', before));
  await page.keyboard.press('Enter');
  await expect(channelsHeading(page)).toBeVisible();

  await addAndProve(page, 'Text message (Personal)', '+49 170 5550199', '+491705550199');
  await expect(page.getByTestId('channel-personalMobile').getByTestId('channel-state')).toContainText(
    'New: may receive emergency codes from',
  );

  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoAxeViolations(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  await page.evaluate(() => window.localStorage.setItem('lang', 'ar'));
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'قنوات الطوارئ الخاصة بك' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expectNoAxeViolations(page);
  await expectFitsNarrowPhone(page);
});

test("a passkey added inside a registration session opens the next one, with the password's session", async ({
  context,
  page,
}) => {
  // WebAuthn needs a host name, not an IP address: this scenario reaches the server as localhost.
  const local = (url: string) => url.replace('127.0.0.1', 'localhost');
  await addVirtualAuthenticator(context, page);
  const signedIn = await page.request.post(`${local(server.baseUrl)}/login/api/session`, {
    data: { username: 'devon', password: PASSWORD },
  });
  expect(signedIn.ok()).toBe(true);
  const printed = deaHere(['user', 'registration-link', 'devon']);
  const link = /https?:\/\/\S+#link=[\w-]+/.exec(printed)?.[0];
  expect(link, printed).toBeDefined();
  await page.goto(local(link ?? ''));
  await expect(channelsHeading(page)).toBeVisible();

  const passkeys = page.getByTestId('passkey-list');
  await expect(passkeys).toContainText('You have no passkey yet.');
  await passkeys.getByLabel('Name of the passkey').fill('Work laptop');
  await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(passkeys.getByRole('button', { name: 'Remove Work laptop' })).toBeVisible();

  // The registration session ends; the password's session stays, and alone it opens nothing.
  await context.clearCookies({ name: REGISTRATION_COOKIE_NAME });
  await page.goto(local(channelsPage()));
  await expect(signInHeading(page)).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByTestId('way-passkey').getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(channelsHeading(page)).toBeVisible();
  await expect(page.getByTestId('passkey-list')).toContainText('Work laptop');
  await expectNoAxeViolations(page);
});
