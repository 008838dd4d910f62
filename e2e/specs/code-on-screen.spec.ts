import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import {
  clickRequestNewCode,
  code,
  expectCodeShown,
  expectFitsNarrowPhone,
  expectNoAxeViolations,
  fillSignInForm,
  goToPage,
  signInAs,
  signInForm,
} from '../support/scenarios';
import { startServer } from '../support/start-server';

// The only scenarios that issue codes to 'demo': they run in order, the last one fills the
// user's store of unused codes on purpose.
test.describe.configure({ mode: 'serial' });

test('a visitor without a session signs in through the login form and comes back to a code', async ({
  page,
  baseURL,
}) => {
  await goToPage(page);
  await expect(page).toHaveURL(`${baseURL}/login/?ep=${encodeURIComponent(`${baseURL}/dea/`)}`);
  await expect(signInForm(page)).toBeVisible();
  await expectNoAxeViolations(page);

  await fillSignInForm(page, 'demo');
  await expect(page).toHaveURL(`${baseURL}/dea/`);
  await expectCodeShown(page);
  await expect(page.getByTestId('user-summary')).toContainText('Dana Demo');
  expect(await page.evaluate(() => sessionStorage.getItem('username'))).toBe('demo');
});

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('a code is shown, copied, kept over a reload and replaced on request', async ({ page }) => {
  await signInAs(page, 'demo');
  const apiCalls: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/dea/api/')) apiCalls.push(`${request.method()} ${path.slice('/dea/api/'.length)}`);
  });
  await goToPage(page);

  const first = await expectCodeShown(page);
  // The page's HTML brought the startup answers: the code is the only call before it.
  expect(apiCalls).toEqual(['POST tempPass/create']);
  await expect(
    page.getByText('Your emergency code. Use it once, in place of your second factor.'),
  ).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: 'Emergency access' })).toBeVisible();
  await expect(page.getByTestId('user-summary')).toContainText('Dana Demo');
  await expectNoAxeViolations(page);

  await page.getByRole('button', { name: 'Copy code' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'The code has been copied to the clipboard.' }),
  ).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);

  await page.reload();
  await expect(code(page)).toHaveText(first);
  // Kept in the session: a reload calls nothing at all.
  expect(apiCalls).toEqual(['POST tempPass/create']);

  await clickRequestNewCode(page);
  await expect(code(page)).not.toHaveText(first);
  const second = await expectCodeShown(page);
  await page.reload();
  await expect(code(page)).toHaveText(second);
  await expectFitsNarrowPhone(page);
});

test('asking for new codes never fills the store; a store filled from other tabs says when a slot frees up', async ({
  browser,
}) => {
  // A server of its own and a dozen requests and tabs: three times the usual deadline, a safety net
  // for a loaded machine.
  test.slow();
  // A server of its own: filling the demo user's code store must not touch other scenarios.
  const server = await startServer();
  const context = await browser.newContext({ baseURL: server.baseUrl });
  try {
    await fillTheStore(context);
  } finally {
    await context.close();
    await server.stop();
  }
});

async function fillTheStore(context: BrowserContext): Promise<void> {
  const page = await context.newPage();
  await signInAs(page, 'demo');
  await goToPage(page);
  let shown = await expectCodeShown(page);
  const error = page.getByTestId('page-error');

  // The demo policy allows 5 unused codes; each new one takes back the one it replaces.
  for (let attempt = 0; attempt < 7; attempt++) {
    await clickRequestNewCode(page);
    await expect(code(page)).not.toHaveText(shown);
    shown = await expectCodeShown(page);
  }
  await expect(error).toHaveCount(0);

  // Four more tabs hold four more codes: the sixth finds the store full.
  let sixth = await openTab(context);
  for (let tab = 0; tab < 6 && (await code(sixth).count()) > 0; tab++) sixth = await openTab(context);
  // The oldest unused code of the demo user (15 minutes of validity) frees the next slot.
  // How many codes the person holds and when the next frees up; nothing tells them to use one
  // they cannot see.
  await expect(sixth.getByTestId('page-error')).toHaveText(
    /^You already hold 5 unused emergency codes, the most allowed at once\. A new one can be requested in about 1[0-5] minutes, when the oldest expires\.$/,
  );
  await expect(sixth.getByTestId('next-code-at')).toHaveText(
    /^You can request a new code from \d{1,2}:\d\d\s?(AM|PM)?\.$/,
  );
  await expect(code(sixth)).toHaveCount(0);
  await expect(sixth.getByRole('button', { name: 'Copy code' })).toHaveCount(0);
  await expect(sixth.getByRole('button', { name: 'Request a new code' })).toBeEnabled();
  await expectNoAxeViolations(sixth);
}

/** A new tab of the same session: its own tab storage, so it asks for a code of its own. */
async function openTab(context: BrowserContext): Promise<Page> {
  const tab = await context.newPage();
  await goToPage(tab);
  await expect(code(tab).or(tab.getByTestId('page-error'))).toBeVisible();
  return tab;
}
