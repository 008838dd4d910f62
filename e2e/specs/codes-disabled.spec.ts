import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, goToPage, signInAs } from '../support/scenarios';

test('a user whose policy disables codes is told so and gets none', async ({ page }) => {
  const codeRequests: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/dea/api/tempPass/')) codeRequests.push(request.url());
  });
  await signInAs(page, 'demo-off');
  await goToPage(page);

  await expect(page.getByTestId('not-authorized')).toHaveText(
    'You are not authorized to get an emergency code. Please contact your administrator.',
  );
  await expect(page.getByTestId('emergency-code')).toHaveCount(0);
  expect(codeRequests).toEqual([]);
  await expectNoAxeViolations(page);
});
