import { expect, test } from '@playwright/test';
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
  await goToPage(page);

  const first = await expectCodeShown(page);
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

  await clickRequestNewCode(page);
  await expect(code(page)).not.toHaveText(first);
  const second = await expectCodeShown(page);
  await page.reload();
  await expect(code(page)).toHaveText(second);
  await expectFitsNarrowPhone(page);
});

test('a full store of unused codes is refused with the server message', async ({ page }) => {
  await signInAs(page, 'demo');
  await goToPage(page);
  await expectCodeShown(page);
  const error = page.getByTestId('page-error');

  // The demo policy allows 5 unused codes; asking for more ends in error 148.
  for (let attempt = 0; attempt < 6 && !(await error.isVisible()); attempt++) {
    const before = (await code(page).textContent()) ?? '';
    await clickRequestNewCode(page);
    await expect(error.or(code(page).filter({ hasNotText: before }))).toBeVisible();
  }

  await expect(error).toHaveText(
    'You already hold the maximum number of unused emergency codes. Use one of them or wait until they expire.',
  );
  await expect(code(page)).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Request a new code' })).toHaveCount(0);
  await expectNoAxeViolations(page);
});
