import { expect, type Page, type Route } from '@playwright/test';
import { dea } from '../support/console';
import {
  code,
  expectCodeShown,
  expectNoAxeViolations,
  goToPage,
  signInAs,
  withoutStartupAnswers,
} from '../support/scenarios';
import { onOwnServer } from '../support/own-server';

/**
 * The page for a person in trouble: no code lost when the page's scripts fail, the envelope's
 * success read as the specification says, and the catch-all on every change of the hash.
 */

// A server of its own: these scenarios count the codes issued to 'demo' in its audit trail.
const { test, server } = onOwnServer({ DEA_CODE_MAX_UNUSED: '100' });

test.describe.configure({ mode: 'serial' });

/** How many codes the server issued to `username`, by its audit trail (`dea audit list`). */
function codesIssuedTo(username: string): number {
  const entries = JSON.parse(
    dea(server(), [
      'audit',
      'list',
      '--user',
      username,
      '--event',
      'code.issued',
      '--json',
      '--limit',
      '1000',
    ]),
  ) as unknown[];
  return entries.length;
}

/** Every script of the page fails to load but its small first one (a flaky network, a blocked chunk). */
async function failEveryScriptButTheFirst(page: Page): Promise<string[]> {
  const failed: string[] = [];
  await page.route(/\/dea\/assets\/[^/]+\.js$/, (route: Route) => {
    const path = new URL(route.request().url()).pathname;
    if (/\/code-on-load-[\w-]+\.js$/.test(path)) return route.fallback();
    failed.push(path);
    return route.abort('connectionreset');
  });
  return failed;
}

test('a page whose scripts fail keeps the one code its first script asked for; reloads ask for none, and the page shows it once it can', async ({
  page,
}) => {
  await signInAs(page, 'demo');
  const before = codesIssuedTo('demo');
  const failed = await failEveryScriptButTheFirst(page);
  const asked: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/dea/api/tempPass/create') asked.push(request.url());
  });

  const created = page.waitForResponse('**/dea/api/tempPass/create');
  await goToPage(page);
  await created;
  // Kept in the tab by the first script, though no other script runs.
  await page.waitForFunction(() => sessionStorage.getItem('emergencyCode') !== null);
  const kept = await page.evaluate(() => sessionStorage.getItem('emergencyCode'));
  expect(failed.length).toBeGreaterThan(0);
  await expect(code(page)).toHaveCount(0);

  for (let reload = 0; reload < 3; reload++) {
    await page.reload({ waitUntil: 'load' });
    expect(await page.evaluate(() => sessionStorage.getItem('emergencyCode'))).toBe(kept);
  }
  expect(asked).toHaveLength(1);
  expect(codesIssuedTo('demo') - before).toBe(1);

  // The scripts load again: the page shows the kept code, and asks for none.
  await page.unroute(/\/dea\/assets\/[^/]+\.js$/);
  await page.reload();
  await expect(code(page)).toHaveText(kept ?? 'a kept code');
  expect(asked).toHaveLength(1);
  expect(codesIssuedTo('demo') - before).toBe(1);
});

/** Each falsy `error` the specification reads as success (section 3: "0 or falsy"). */
const FALSY_ERRORS: [string, Record<string, unknown>][] = [
  ['0', { error: 0 }],
  ['false', { error: false }],
  ['null', { error: null }],
  ['""', { error: '' }],
  ['absent', {}],
];

for (const [name, error] of FALSY_ERRORS) {
  test(`an envelope whose error is ${name} is a success, on every call`, async ({ page }) => {
    await signInAs(page, 'demo');
    await withoutStartupAnswers(page);
    // Every envelope the page reads is answered with this `error`, the rest as the server says.
    await page.route('**/dea/api/**', async (route) => {
      const response = await route.fetch();
      const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      if (body === undefined || !('error' in body) || body.error !== 0) return route.fulfill({ response });
      const { error: _ignored, ...rest } = body;
      return route.fulfill({ response, json: { ...rest, ...error } });
    });
    await goToPage(page);
    await expectCodeShown(page);
    await expect(page.getByRole('alert')).toHaveCount(0);
  });
}

test('a send answered with error null says where the code went', async ({ page }) => {
  await signInAs(page, 'demo-channel');
  await page.route('**/dea/api/tempPass/createAndSend', (route) =>
    route.fulfill({ json: { error: null, message: null, result: { to: 'c***@e***.com' } } }),
  );
  await goToPage(page);
  await page.getByRole('button', { name: 'E-mail' }).click();
  await page.getByRole('menuitem').first().click();
  await expect(page.getByRole('dialog', { name: 'Message' }).getByTestId('send-success')).toHaveText(
    'Your emergency code has been sent to c***@e***.com.',
  );
});

test('the catch-all replaces every unknown hash with #/, each time', async ({ page, baseURL }) => {
  await signInAs(page, 'demo');
  await goToPage(page);
  const shown = await expectCodeShown(page);
  for (const hash of ['#/nothing', '#/other', '#/other', '#/x?y=1', '#nothing']) {
    await page.evaluate((next) => {
      window.location.hash = next;
    }, hash);
    await expect(page, hash).toHaveURL(`${baseURL}/dea/#/`);
    await expect(code(page)).toHaveText(shown);
  }
  // A known route between them is kept, and the next unknown one replaced again.
  await page.evaluate(() => {
    window.location.hash = '#/logoutLanding';
  });
  await expect(page.getByTestId('logout-landing')).toBeVisible();
  await page.evaluate(() => {
    window.location.hash = '#/again';
  });
  await expect(page).toHaveURL(`${baseURL}/dea/#/`);
  await expectNoAxeViolations(page);
});

test('a start whose texts fail says so in the visitor’s language, and offers to try again and to log out', async ({
  page,
  baseURL,
}) => {
  await signInAs(page, 'demo-off');
  // A language chosen earlier whose texts cannot be loaded now.
  await page.addInitScript(() => localStorage.setItem('lang', 'de'));
  let failing = true;
  await page.route(/\/dea\/api\/message\?lang=de$/, (route) =>
    failing ? route.fulfill({ status: 500, json: {} }) : route.fallback(),
  );
  await goToPage(page);
  const failure = page.getByTestId('startup-failure');
  await expect(failure.getByRole('heading', { level: 1 })).toHaveText(
    'Der Notfallzugang kann gerade nicht angezeigt werden',
  );
  await expect(failure.getByRole('alert')).toHaveText(
    'Ein Fehler ist aufgetreten. Bitte versuchen Sie es später erneut',
  );
  await expectNoAxeViolations(page);

  // Trying again when the texts come: the page, in German.
  failing = false;
  await failure.getByRole('button', { name: 'Erneut versuchen' }).click();
  await expect(page.getByTestId('not-authorized')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');

  // Logging out from the failure.
  failing = true;
  await page.reload();
  await failure.getByRole('button', { name: 'Abmelden' }).click();
  await expect(page).toHaveURL(/\/dea\/#\/logoutLanding\?ep=/);
  expect((await page.request.post(`${baseURL}/dea/api/userinfo`, { data: {} })).status()).toBe(403);
});

test('a language switch whose texts fail is not kept: the page stays as it was, and so does the next visit', async ({
  page,
}) => {
  await signInAs(page, 'demo-off');
  await page.route(/\/dea\/api\/message\?lang=fr$/, (route) => route.fulfill({ status: 500, json: {} }));
  await goToPage(page);
  await expect(page.getByTestId('not-authorized')).toBeVisible();
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Language' }).click();
  await page.getByRole('menuitemradio', { name: 'Français' }).click();
  await expect(page.getByTestId('page-error')).toHaveText('An error occurred, please try again later');
  expect(await page.evaluate(() => localStorage.getItem('lang'))).toBeNull();
  await page.reload();
  await expect(page.getByTestId('not-authorized')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.getByTestId('startup-failure')).toHaveCount(0);
});

test('while the policy loads the card has a level-one heading', async ({ page }) => {
  await signInAs(page, 'demo');
  await withoutStartupAnswers(page);
  let release: () => void = () => undefined;
  const policyMayGo = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/dea/api/user/getPolicy', async (route) => {
    await policyMayGo;
    await route.fallback();
  });
  await goToPage(page);
  await expect(page.getByTestId('code-card').getByTestId('spinner')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Loading…');
  await expectNoAxeViolations(page, ['page-has-heading-one']);
  release();
  await expectCodeShown(page);
});

test('an expired code is shown as expired: asking for a new one first, and copying says it expired', async ({
  page,
}) => {
  await page.clock.install();
  await signInAs(page, 'demo');
  await goToPage(page);
  const expired = await expectCodeShown(page);
  await expect(page.getByTestId('code-validity')).toContainText('15 minutes');
  // The demo policy's 15 minutes pass.
  await page.clock.fastForward('15:01');
  await expect(page.getByTestId('code-expired')).toHaveText('This code has expired. Request a new code.');
  const buttons = page.getByTestId('code-panel').getByRole('button');
  await expect(buttons).toHaveText(['Request a new code', 'Copy code']);
  await page.getByRole('button', { name: 'Copy code' }).click();
  await expect(page.getByTestId('copy-outcome')).toHaveText(
    'This code has expired and was not copied. Request a new code.',
  );
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Request a new code' }).click();
  await expect(code(page)).not.toHaveText(expired);
  await expect(page.getByTestId('code-validity')).toContainText('15 minutes');
});

test('after a send one line stays: where the code went and until when it works', async ({ page }) => {
  await signInAs(page, 'demo-channel');
  await page.route('**/dea/api/tempPass/createAndSend', (route) =>
    route.fulfill({ json: { error: 0, message: '', result: { to: 'c***@e***.com' } } }),
  );
  await goToPage(page);
  await page.getByRole('button', { name: 'E-mail' }).click();
  await page.getByRole('menuitem').first().click();
  const dialog = page.getByRole('dialog', { name: 'Message' });
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('sent-line')).toHaveText(
    /^Your emergency code was sent to c\*\*\*@e\*\*\*\.com\. It is valid until \d{1,2}:\d\d\s?(AM|PM)?\.$/,
  );
});
