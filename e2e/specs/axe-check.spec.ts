import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, goToLogoutLanding } from '../support/scenarios';

// The scenarios' accessibility check itself: it passes a page without violations and fails, naming
// each rule and element, on one with them (it reports violations only: resultTypes, as every
// scenario's check runs it).
test('the accessibility check fails on a violation and names it', async ({ page, baseURL }) => {
  await goToLogoutLanding(page, `${baseURL}/login/`);
  await expect(page.getByRole('dialog', { name: 'You have been logged out' })).toBeVisible();
  await expectNoAxeViolations(page);

  await page.evaluate(() => {
    const dialog = document.querySelector('dialog') ?? document.body;
    const button = document.createElement('button');
    button.id = 'unnamed-button';
    const image = document.createElement('img');
    image.id = 'image-without-text';
    image.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
    dialog.append(button, image);
  });
  const failure = await expectNoAxeViolations(page).then(
    () => 'passed',
    (error: Error) => error.message,
  );
  expect(failure).toContain('button-name');
  expect(failure).toContain('#unnamed-button');
  expect(failure).toContain('image-alt');
  expect(failure).toContain('#image-without-text');
});
