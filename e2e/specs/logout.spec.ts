import { expect, test } from '@playwright/test';
import {
  clickLogoutInMenu,
  expectNoAxeViolations,
  goToLogoutLanding,
  goToPage,
  signInAs,
} from '../support/scenarios';

test('Cancel keeps the user on the page', async ({ page }) => {
  await signInAs(page, 'demo-off');
  await goToPage(page);
  await clickLogoutInMenu(page);
  const confirm = page.getByRole('dialog', { name: 'Log out' });
  await expect(confirm).toContainText('Do you really want to log out?');
  await expectNoAxeViolations(page);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page).toHaveURL(/\/dea\/(#\/)?$/);
  await expect(page.getByRole('button', { name: 'User menu' })).toBeFocused();
});

test('Logout ends the session and lands on the logout page, which leads back to login', async ({
  page,
  baseURL,
}) => {
  await signInAs(page, 'demo-off');
  await goToPage(page);
  await clickLogoutInMenu(page);
  await page.getByRole('dialog', { name: 'Log out' }).getByRole('button', { name: 'Log out' }).click();

  await expect(page).toHaveURL(/\/dea\/#\/logoutLanding\?ep=/);
  const landing = page.getByRole('dialog', { name: 'You have been logged out' });
  await expect(landing).toContainText('Your session has ended. To continue, log in again.');
  await page.keyboard.press('Escape');
  await expect(landing).toBeVisible();
  await expectNoAxeViolations(page);

  const userinfo = await page.request.post('/dea/api/userinfo', { data: {} });
  expect(userinfo.status()).toBe(403);

  await landing.getByRole('button', { name: 'Back to login' }).click();
  await expect(page).toHaveURL(`${baseURL}/login/`);
});

test('the logout page refuses to lead to another host', async ({ page }) => {
  for (const ep of [
    '//evil.test/login/',
    'https://127.0.0.1.evil.test/',
    'javascript:alert(1)',
    'https://a@evil.test/',
  ]) {
    await goToLogoutLanding(page, ep);
    const landing = page.getByRole('dialog', { name: 'You have been logged out' });
    await landing.getByRole('button', { name: 'Back to login' }).click();
    await expect(landing).toBeVisible();
    await expect(page).toHaveURL(/\/dea\/#\/logoutLanding\?ep=/);
  }
});
