import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, goToPage, openUserMenu, signInAs } from '../support/scenarios';
import { type RunningServer, startServer } from '../support/start-server';

test('the chosen language applies at once and after a reload', async ({ page }) => {
  await signInAs(page, 'demo-off');
  await goToPage(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Language' }).click();
  await expect(page.getByRole('menuitemradio', { name: 'English' })).toHaveAttribute('aria-checked', 'true');
  await expectNoAxeViolations(page);
  await page.getByRole('menuitemradio', { name: 'Deutsch' }).click();

  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByTestId('not-authorized')).toContainText('nicht berechtigt');
  await expect(page.getByRole('button', { name: 'Benutzermenü' })).toBeVisible();

  await page.reload();
  await expect(page.getByTestId('not-authorized')).toContainText('nicht berechtigt');
  expect(await page.evaluate(() => [localStorage.getItem('lang'), sessionStorage.getItem('lang')])).toEqual([
    'de',
    'de',
  ]);
});

test('Arabic lays the page out right to left', async ({ page }) => {
  await signInAs(page, 'demo-off');
  await goToPage(page);
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Language' }).click();
  await page.getByRole('menuitemradio', { name: 'العربية' }).click();

  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  await expectNoAxeViolations(page);
});

test.describe('the emergency moment in German, Arabic and Japanese', () => {
  // A server of its own: the demo user's fresh code must not meet a store other scenarios filled.
  let server: RunningServer;
  test.beforeAll(async () => {
    server = await startServer();
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  for (const [language, validity, expectedDir, work] of [
    ['de', /^Gültig bis .+ \(noch 15 Minuten\)\.$/, 'ltr', 'Dienstlich'],
    ['ar', /^صالح حتى .+ \(متبقٍ 15 دقيقة\)\.$/, 'rtl', 'العمل'],
    ['ja', /^.+ まで有効 \(残り 15 分\)。$/, 'ltr', '仕事'],
  ] as const) {
    test(`${language}: the code says how long it lives, and recipients say work or personal`, async ({
      browser,
    }) => {
      const context = await browser.newContext({ baseURL: server.baseUrl });
      const page = await context.newPage();
      await page.addInitScript((code) => localStorage.setItem('lang', code), language);
      await signInAs(page, 'demo');
      await goToPage(page);
      await expect(page.locator('html')).toHaveAttribute('lang', language);
      await expect(page.locator('html')).toHaveAttribute('dir', expectedDir);
      await expect(page.getByTestId('code-validity')).toHaveText(validity);
      await expectNoAxeViolations(page);

      await signInAs(page, 'demo-channel');
      await goToPage(page);
      await page.getByTestId('channel-sms').getByRole('button').click();
      await expect(page.getByRole('menuitem').first()).toContainText(work);
      await expectNoAxeViolations(page);
      await context.close();
    });
  }
});
