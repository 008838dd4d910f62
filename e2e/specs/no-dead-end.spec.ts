import { expect, test as base, type Page, type Route } from '@playwright/test';
import { dea } from '../support/console';
import {
  code,
  expectCodeShown,
  expectNoAxeViolations,
  goToPage,
  signInAs,
  withoutStartupAnswers,
} from '../support/scenarios';
import { startServer, type RunningServer } from '../support/start-server';

/**
 * The page for a person in trouble: no code lost when the page's scripts fail, the envelope's
 * success read as the specification says, and the catch-all on every change of the hash.
 */

// A server of its own: these scenarios count the codes issued to 'demo' in its audit trail.
const test = base.extend<object, { ownServer: RunningServer }>({
  ownServer: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startServer({ DEA_CODE_MAX_UNUSED: '100' });
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ ownServer }, use) => use(ownServer.baseUrl),
});

test.describe.configure({ mode: 'serial' });

/** How many codes the server issued to `username`, by its audit trail (`dea audit list`). */
function codesIssuedTo(server: RunningServer, username: string): number {
  const entries = JSON.parse(
    dea(server, ['audit', 'list', '--user', username, '--event', 'code.issued', '--json', '--limit', '1000']),
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
  ownServer,
}) => {
  await signInAs(page, 'demo');
  const before = codesIssuedTo(ownServer, 'demo');
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
  expect(codesIssuedTo(ownServer, 'demo') - before).toBe(1);

  // The scripts load again: the page shows the kept code, and asks for none.
  await page.unroute(/\/dea\/assets\/[^/]+\.js$/);
  await page.reload();
  await expect(code(page)).toHaveText(kept ?? 'a kept code');
  expect(asked).toHaveLength(1);
  expect(codesIssuedTo(ownServer, 'demo') - before).toBe(1);
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
