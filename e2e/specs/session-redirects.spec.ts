import { expect, test } from '@playwright/test';
import { goToPage, signInAs, withoutStartupAnswers } from '../support/scenarios';

test('a visitor without a session is sent to the login application (403)', async ({ page, baseURL }) => {
  await goToPage(page);
  await expect(page).toHaveURL(`${baseURL}/login/?ep=${encodeURIComponent(`${baseURL}/dea/`)}`);
});

test('the stored user name goes along to the login application', async ({ page, baseURL }) => {
  await page.goto('/dea/#/logoutLanding');
  await page.evaluate(() => sessionStorage.setItem('username', 'demo'));
  await page.goto('/dea/#/');
  await expect(page).toHaveURL(
    `${baseURL}/login/?username=demo&ep=${encodeURIComponent(`${baseURL}/dea/#/`)}`,
  );
});

test('an expired session is sent to logout, which lands on the logout page (401)', async ({ page }) => {
  await signInAs(page, 'demo');
  await withoutStartupAnswers(page);
  await page.route('**/dea/api/userinfo', (route) =>
    route.fulfill({
      status: 401,
      contentType: 'application/json',
      body: JSON.stringify({ error: 3, message: 'expired', result: null }),
    }),
  );
  await goToPage(page);
  await expect(page).toHaveURL(/\/dea\/#\/logoutLanding\?ep=/);
  await expect(page.getByRole('dialog', { name: 'You have been logged out' })).toBeVisible();
});
