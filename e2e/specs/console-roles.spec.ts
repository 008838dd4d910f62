import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import {
  addConsoleAccount,
  addVirtualAuthenticator,
  consoleFetch,
  consoleOrigin,
  signInToConsole,
} from '../support/console';
import { expectNoAxeViolations } from '../support/scenarios';
import { type RunningServer, startServer } from '../support/start-server';

// The console as each role uses it, in Chromium with a virtual authenticator: what a help-desk
// agent, an auditor and an administrator can do, and what each must not be able to do.
let server: RunningServer;
let origin: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await startServer();
  origin = consoleOrigin(server);
  addConsoleAccount(server, 'hana', 'helpdesk', 'Hana Helpdesk');
  addConsoleAccount(server, 'otto', 'auditor', 'Otto Auditor');
  addConsoleAccount(server, 'ada', 'admin', 'Ada Admin');
});

test.afterAll(async () => {
  await server?.stop();
});

test('a help-desk agent finds a caller, gives them a code once, revokes it and cannot read the audit log', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await page.goto(`${origin}/admin/`);
  await expect(page.getByRole('heading', { name: 'Sign in to the console' })).toBeVisible();
  await expectNoAxeViolations(page);

  // A wrong password is refused with the reason, and nothing of the console opens.
  await page.getByLabel('Console user name').fill('hana');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toContainText('incorrect');

  await signInToConsole(page, origin, 'hana');
  await expect(page.getByTestId('console-account')).toContainText('Hana Helpdesk');
  const nav = page.getByRole('navigation', { name: 'Console' });
  await expect(nav.getByRole('link')).toHaveText(['Help desk']);

  // Find the demo user by name, open them, and see where they stand.
  await page.getByLabel('Find the user').fill('demo');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByText('Users found: 3')).toBeVisible();
  await expectNoAxeViolations(page);
  await page
    .getByTestId('helpdesk-results')
    .getByRole('link')
    .filter({ hasText: /^Dana Demo/ })
    .click();
  await expect(page.getByTestId('helpdesk-policy')).toContainText('Codes allowed');
  await expect(page.getByText('No unused codes.')).toBeVisible();

  // A reason is required; then the code is shown once.
  await page.getByRole('button', { name: 'Issue a code' }).click();
  await expect(page.getByRole('alert')).toContainText('Write a reason');
  await page.getByLabel('Reason').fill('Ticket 4711, identified by call-back');
  await page.getByRole('button', { name: 'Issue a code' }).click();
  await expect(page.getByTestId('issued-code')).toHaveText(/^[0-9A-Z]{6,}$/);
  await expect(page.getByTestId('helpdesk-codes').getByRole('row')).toHaveCount(2);
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Hide the code' }).click();
  await expect(page.getByTestId('issued-code')).toHaveCount(0);

  // Revoke it.
  await page.getByTestId('helpdesk-codes').getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByTestId('helpdesk-done')).toHaveText('Codes revoked: 1');
  await expect(page.getByText('No unused codes.')).toBeVisible();
  await expect(page.getByTestId('helpdesk-audit')).toContainText('console:hana');

  // The audit log is not theirs: no link, the address shows the help desk, the API refuses.
  await page.goto(`${origin}/admin/#/audit`);
  await expect(page.getByRole('heading', { name: 'Help a user' })).toBeVisible();
  expect(await consoleFetch(page, 'audit')).toMatchObject({ status: 403 });
});

test('an auditor reads and exports the audit log, filtered, and cannot help a user', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await signInToConsole(page, origin, 'otto');
  const nav = page.getByRole('navigation', { name: 'Console' });
  await expect(nav.getByRole('link')).toHaveText(['Audit log']);
  await expect(page.getByTestId('audit-table')).toBeVisible();
  await expectNoAxeViolations(page);

  await page.getByTestId('audit-actor').fill('console:hana');
  await page.getByRole('button', { name: 'Show' }).click();
  const rows = page.getByTestId('audit-table').locator('tbody tr');
  await expect(rows.first()).toContainText('console:hana');
  for (const row of await rows.all()) await expect(row).toContainText('console:hana');
  await expect(page.getByTestId('audit-table')).toContainText('code.issued');

  const download = page.waitForEvent('download');
  await page.getByTestId('audit-csv').click();
  const csv = await readFile((await (await download).path()) ?? '', 'utf8');
  expect(csv.split('\n')[0]).toContain('event');
  expect(csv).toContain('code.issued');
  expect(csv).not.toContain('console:otto');

  // "Until" before "From" is caught before asking.
  await page.getByTestId('audit-since').fill('2026-01-02T10:00');
  await page.getByTestId('audit-until').fill('2026-01-01T10:00');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(page.getByRole('alert')).toContainText('must be after');

  // The help desk is not theirs.
  await page.goto(`${origin}/admin/#/helpdesk`);
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  expect(await consoleFetch(page, 'helpdesk/users?q=demo')).toMatchObject({ status: 403 });
});
