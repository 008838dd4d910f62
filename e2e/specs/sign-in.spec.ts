import { expect, test } from '@playwright/test';
import {
  clickLogoutInMenu,
  DEMO_PASSWORD,
  expectFitsNarrowPhone,
  expectNoAxeViolations,
  fillSignInForm,
  goToLogin,
  goToPage,
  signInAlert,
  signInForm,
  withoutStartupAnswers,
} from '../support/scenarios';

// Sign-ins through the form use 'demo-off' (no codes to fill the store 'demo' has); the
// scenario that comes back to a code as 'demo' lives in code-on-screen.spec.ts, in its order.

test('sign in with the pre-filled user name; the session cookie is httpOnly and SameSite=Lax, the cross-site token readable', async ({
  page,
  context,
  baseURL,
}) => {
  const ep = `${baseURL}/dea/#/`;
  await goToLogin(page, `?username=demo-off&ep=${encodeURIComponent(ep)}`);
  const form = signInForm(page);
  await expect(form.getByRole('textbox', { name: 'User name' })).toHaveValue('demo-off');
  await expect(form.getByLabel('Password')).toBeFocused();

  await page.keyboard.type(DEMO_PASSWORD);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(ep);
  await expect(page.getByTestId('not-authorized')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('username'))).toBe('demo-off');

  const cookies = await context.cookies();
  const session = cookies.find((cookie) => cookie.name === 'dea_session');
  const token = cookies.find((cookie) => cookie.name === 'XSRF-TOKEN');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  expect(token).toMatchObject({ httpOnly: false, sameSite: 'Lax' });
});

test('sign out, confirm, land on the logout page, and go back to the login form', async ({
  page,
  baseURL,
}) => {
  await goToLogin(page);
  await fillSignInForm(page, 'demo-off');
  await expect(page).toHaveURL(`${baseURL}/dea/`);
  await expect(page.getByTestId('not-authorized')).toBeVisible();

  await clickLogoutInMenu(page);
  await page.getByRole('dialog', { name: 'Log out' }).getByRole('button', { name: 'Log out' }).click();
  const landing = page.getByRole('dialog', { name: 'You have been logged out' });
  await landing.getByRole('button', { name: 'Back to login' }).click();

  await expect(page).toHaveURL(`${baseURL}/login/`);
  await expect(signInForm(page)).toBeVisible();
  await expect(signInForm(page).getByRole('textbox', { name: 'User name' })).toBeFocused();
  expect((await page.request.post('/dea/api/userinfo', { data: {} })).status()).toBe(403);
});

test('keyboard only: a missing password, a wrong password and an unknown user', async ({ page }) => {
  await goToLogin(page);
  const form = signInForm(page);
  const password = form.getByLabel('Password');
  await expectNoAxeViolations(page);

  await page.keyboard.type('demo-channel');
  await page.keyboard.press('Enter');
  await expect(signInAlert(page)).toHaveText('Please enter your user name and password.');
  await expect(password).toBeFocused();
  await expect(password).toHaveAttribute('aria-invalid', 'true');
  await expectNoAxeViolations(page);

  await page.keyboard.type('not-the-password');
  await page.keyboard.press('Enter');
  await expect(signInAlert(page)).toHaveText('The user name or password is incorrect.');
  await expect(signInAlert(page)).toBeFocused();
  await expect(password).toHaveValue('');
  await expectNoAxeViolations(page);

  // An unknown user reads exactly the same, so the form never tells who has an account.
  await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('button', { name: 'Language' })).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('e2e-no-such-user');
  await page.keyboard.press('Tab');
  await page.keyboard.type('not-the-password');
  await page.keyboard.press('Enter');
  await expect(signInAlert(page)).toBeFocused();
  await expect(signInAlert(page)).toHaveText('The user name or password is incorrect.');
});

test('repeated failures lock the user name, and the form says so', async ({ page }) => {
  // A user name no other scenario uses, and that does not exist: it locks just the same.
  await goToLogin(page);
  const answers: { error: number; retryAfter: string | null }[] = [];
  for (let attempt = 1; attempt <= 4; attempt++) {
    const answer = page.waitForResponse('**/login/api/session');
    await fillSignInForm(page, 'e2e-lockout', `wrong-${attempt}`);
    const response = await answer;
    answers.push({
      error: ((await response.json()) as { error: number }).error,
      retryAfter: response.headers()['retry-after'] ?? null,
    });
    await expect(signInAlert(page)).toBeFocused();
  }
  // Three passwords are checked (DEA_SIGNIN_MAX_FAILURES=3), the fourth is refused unchecked.
  expect(answers.map((answer) => answer.error)).toEqual([3, 3, 3, 140]);
  expect(Number(answers[3]?.retryAfter)).toBeGreaterThan(0);
  await expect(signInAlert(page)).toHaveText(
    'Too many failed attempts. Please try again in about 15 minutes.',
  );
  await expectNoAxeViolations(page);
});

test('an ep of another host is ignored: the user lands on the page', async ({ page, baseURL }) => {
  await goToLogin(page, `?ep=${encodeURIComponent('https://evil.test/dea/')}`);
  await fillSignInForm(page, 'demo-off');
  await expect(page).toHaveURL(`${baseURL}/dea/`);
  await expect(page.getByTestId('not-authorized')).toBeVisible();
});

test('an expired session leads to logout, and from there back to the login form', async ({
  page,
  baseURL,
}) => {
  await goToLogin(page);
  await fillSignInForm(page, 'demo-off');
  await expect(page.getByTestId('not-authorized')).toBeVisible();

  // The idle timeout is at least a minute; the server's 401 for it is emulated.
  await withoutStartupAnswers(page);
  await page.route('**/dea/api/userinfo', (route) =>
    route.fulfill({
      status: 401,
      contentType: 'application/json',
      body: JSON.stringify({ error: 3, message: 'expired', result: null }),
    }),
  );
  await page.reload();
  const landing = page.getByRole('dialog', { name: 'You have been logged out' });
  await landing.getByRole('button', { name: 'Back to login' }).click();
  await expect(page).toHaveURL(`${baseURL}/login/`);
  await expect(signInForm(page)).toBeVisible();
});

test('the login form in Arabic: right to left, kept after a reload, fits a 320 px phone', async ({
  page,
}) => {
  await goToLogin(page);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.getByRole('menuitemradio', { name: 'العربية' }).click();

  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  const form = page.getByRole('form', { name: 'تسجيل الدخول إلى Emergency Access' });
  await expect(form).toBeVisible();
  await expectNoAxeViolations(page);

  await page.reload();
  await expect(form).toBeVisible();
  await form.getByRole('button', { name: 'تسجيل الدخول' }).click();
  await expect(signInAlert(page)).toHaveText('يُرجى إدخال اسم المستخدم وكلمة المرور.');
  await expectFitsNarrowPhone(page);
  await expectNoAxeViolations(page);
});

test('the login form fits a 320 px phone and carries the branding', async ({ page }) => {
  await goToPage(page);
  await expect(signInForm(page)).toBeVisible();
  await expect(page).toHaveTitle('Emergency Access');
  await expect(page.getByTestId('header-middle')).toHaveText('Emergency Access');
  await expect(page.getByTestId('footer-right')).toHaveText('Version: 8.0.20');
  await expect(page.getByRole('img', { name: 'Emergency Access logo' })).toBeVisible();
  await expectFitsNarrowPhone(page);
  await page.getByRole('button', { name: 'Language' }).click();
  await expect(page.getByRole('menu', { name: 'Language' })).toBeInViewport();
  await expectNoAxeViolations(page);
});
