import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, goToPage, openUserMenu, signInAs } from '../support/scenarios';

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
