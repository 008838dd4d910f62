import { expect, test } from '@playwright/test';
import {
  expectCodeShown,
  fillSignInForm,
  goToPage,
  signInAs,
  signInForm,
  withoutStartupAnswers,
} from '../support/scenarios';

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

test("the page's link with no session: straight to the login form without the page's scripts, then the code", async ({
  page,
  baseURL,
}) => {
  const fetched: string[] = [];
  page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
  await page.goto('/dea/?from=sms');
  await expect(signInForm(page)).toBeVisible();
  await expect(page).toHaveURL(`${baseURL}/login/?ep=${encodeURIComponent(`${baseURL}/dea/?from=sms`)}`);
  // Nothing of the page but its HTML before the login application: no scripts, no call (no 403).
  const beforeLogin = fetched.slice(0, fetched.indexOf('/login/'));
  expect(beforeLogin).toEqual(['/dea/']);
  await fillSignInForm(page, 'demo');
  await expectCodeShown(page);
  await expect(page).toHaveURL(`${baseURL}/dea/?from=sms`);
});

test('a tab that kept the user name, with its session gone: the login form has it, and the stored code is forgotten', async ({
  page,
  baseURL,
}) => {
  await page.goto('/login/');
  await fillSignInForm(page, 'demo');
  await expectCodeShown(page);
  await page.context().clearCookies();
  await page.reload();
  await expect(signInForm(page).getByRole('textbox', { name: 'User name' })).toHaveValue('demo');
  await expect(page).toHaveURL(`${baseURL}/login/?username=demo&ep=${encodeURIComponent(`${baseURL}/dea/`)}`);
  expect(await page.evaluate(() => sessionStorage.getItem('emergencyCode'))).toBeNull();
});
