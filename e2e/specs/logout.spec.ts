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
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  // The page behind the native modal dialog is inert: Tab, either way round, visits the dialog's
  // controls and the browser's own, never the page's.
  const visited = new Set<string>();
  for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
    await page.keyboard.press(key);
    const focused = await page.evaluate(() => {
      const active = document.activeElement;
      if (active === null || active === document.body) return 'outside the document';
      return document.querySelector('dialog')?.contains(active) === true ? active.textContent : 'page';
    });
    expect(focused).not.toBe('page');
    visited.add(focused ?? '');
  }
  expect([...visited].filter((name) => name !== 'outside the document').sort()).toEqual([
    'Cancel',
    'Log out',
    '×',
  ]);
  expect(await page.evaluate(() => document.elementFromPoint(5, 5)?.tagName)).toBe('DIALOG');
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'User menu' })).toBeFocused();

  await clickLogoutInMenu(page);
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
  // Twice: the browser lets a page refuse one close request, the dialog refuses every one.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 5);
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

test('/dea/logout opened from outside the page asks to confirm, and its button ends the session', async ({
  page,
}) => {
  await signInAs(page, 'demo-off');
  await goToPage(page);
  const cookies = await page.context().cookies();
  const token = cookies.find((cookie) => cookie.name.endsWith('XSRF-TOKEN'))?.value ?? '';
  const userinfo = () =>
    page.request.post('/dea/api/userinfo', {
      data: {},
      headers: {
        cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '),
        'x-xsrf-token': token,
      },
    });
  expect((await userinfo()).status()).toBe(200);
  // A typed or linked URL (Sec-Fetch-Site: none) ends nothing by itself.
  await page.goto('/dea/logout');
  await expect(page.getByText('Do you really want to log out?')).toBeVisible();
  expect((await userinfo()).status()).toBe(200);
  await expectNoAxeViolations(page);

  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/dea\/#\/logoutLanding\?ep=/);
  expect((await userinfo()).status()).toBe(401);
});
