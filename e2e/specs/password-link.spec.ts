import { expect, test } from '@playwright/test';
import { consoleOrigin, dea } from '../support/console';
import { expectFitsNarrowPhone, expectNoAxeViolations, fillSignInForm } from '../support/scenarios';
import { type RunningServer, startServer } from '../support/start-server';

// A one-time link to set a user's password, as the user gets it from an
// administrator: the login application's small form, in Chromium, keyboard only and axe-clean.
let server: RunningServer;

test.beforeAll(async () => {
  server = await startServer();
  dea(
    server,
    ['user', 'add', '--username', 'paula', '--full-name', 'Paula Link', '--password-stdin'],
    'the old password\n',
  );
});

test.afterAll(async () => {
  await server?.stop();
});

test('a password link sets a new password once, with a form that reads well and fits a phone', async ({
  page,
}) => {
  const printed = dea(server, ['user', 'password-link', 'paula']);
  const link = /^https?:\/\/\S+#reset=[A-Za-z0-9_-]+$/m.exec(printed)?.[0];
  expect(link, printed).toBeDefined();
  const origin = consoleOrigin(server);
  await page.goto(link ?? '');
  const form = page.getByRole('form', { name: 'Set a new password' });
  const password = form.getByLabel('New password');
  await expect(password).toBeFocused();
  // The token leaves the address bar (and the history entry) at once.
  await expect(page).toHaveURL(`${origin}/login/`);
  await expectNoAxeViolations(page);

  await page.keyboard.type('short');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText('The password must have at least 8 characters.');
  await expect(password).toHaveAttribute('aria-invalid', 'true');
  await expectNoAxeViolations(page);

  await password.fill('');
  await page.keyboard.type('a brand new password');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText('Your password is set.');
  await expectNoAxeViolations(page);
  await expectFitsNarrowPhone(page);

  // Once only: the same link again is refused, in the person's words.
  await page.setViewportSize({ width: 1280, height: 800 });
  // A new load (only the fragment differs from the address shown now).
  await page.goto('about:blank');
  await page.goto(link ?? '');
  await page.getByLabel('New password', { exact: true }).fill('yet another password');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText('cannot be used');
  await expectNoAxeViolations(page);

  // The new password signs in; the old one does not.
  await page.goto(`${origin}/login/`);
  await fillSignInForm(page, 'paula', 'the old password');
  await expect(page.getByRole('alert')).toHaveText('The user name or password is incorrect.');
  await page.goto(`${origin}/login/`);
  await fillSignInForm(page, 'paula', 'a brand new password');
  await expect(page).toHaveURL(`${origin}/dea/`);
});
