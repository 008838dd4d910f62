import { expect, test } from '@playwright/test';
import {
  envelope,
  expectNoAxeViolations,
  goToPage,
  signInAs,
  withoutStartupAnswers,
} from '../support/scenarios';

test('the default branding names the product', async ({ page }) => {
  await signInAs(page, 'demo-off');
  await goToPage(page);
  await expect(page).toHaveTitle('Emergency Access');
  await expect(page.getByTestId('header-middle')).toHaveText('Emergency Access');
  await expect(page.getByTestId('footer-right')).toHaveText('Version: 8.0.20');
  await expect(page.getByRole('img', { name: 'Emergency Access logo' })).toBeVisible();
});

test("the administrator's branding is applied, and its HTML cannot run scripts", async ({ page }) => {
  await withoutStartupAnswers(page);
  await page.route(
    '**/dea/api/customizationConfig/getCurrentConfig',
    envelope([
      {
        name: 'CSS',
        type: 'css',
        value: '.page-header { background-color: rgb(92, 0, 32); }',
        isDefault: false,
      },
      { name: 'htmlTitle', type: 'text', value: 'Acme Emergency Access', isDefault: false },
      { name: 'headerMiddle', type: 'html', value: '<strong>Acme</strong> Corp', isDefault: false },
      {
        name: 'headerRight',
        type: 'html',
        value:
          '<center><font color="red"><span>Acme IT</span></font></center><svg><text>svg</text></svg><embed src="x.swf">',
        isDefault: false,
      },
      {
        name: 'footerLeft',
        type: 'html',
        value: '<a href="https://acme.test/help">Help desk</a><img src="x" onerror="window.hacked=1" alt="">',
        isDefault: false,
      },
      { name: 'footerRight', type: 'html', value: 'ignored', isDefault: true },
    ]),
  );
  await signInAs(page, 'demo-off');
  await goToPage(page);

  await expect(page).toHaveTitle('Acme Emergency Access');
  await expect(page.locator('.page-header')).toHaveCSS('background-color', 'rgb(92, 0, 32)');
  await expect(page.getByTestId('header-middle')).toHaveText('Acme Corp');
  // Chromium's own parser and node iterators: unknown wrappers give way, SVG and embeds go.
  expect(await page.getByTestId('header-right-custom').innerHTML()).toBe('<span>Acme IT</span>');
  await expect(page.getByTestId('user-summary')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Help desk' })).toHaveAttribute(
    'href',
    'https://acme.test/help',
  );
  await expect(page.getByTestId('footer-right')).toHaveText('Version: 8.0.20');
  expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
  await expectNoAxeViolations(page);
});
