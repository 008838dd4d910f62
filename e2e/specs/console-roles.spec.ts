import { readFile } from 'node:fs/promises';
import { LOCAL_STORAGE_KEYS } from '@dea/contract';
import { expect, test, type Locator, type Page } from '@playwright/test';
import {
  addConsoleAccount,
  addVirtualAuthenticator,
  consoleFetch,
  enrolmentLinkOf,
  consoleOrigin,
  dea,
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
  addConsoleAccount(server, 'hugo', 'helpdesk', 'Hugo Helpdesk');
  addConsoleAccount(server, 'lena', 'auditor', 'Lena Prüferin');
  addConsoleAccount(server, 'bea', 'admin', 'Bea Branding');
  addConsoleAccount(server, 'ted', 'admin', 'Ted Texts');
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
  await expect(nav.getByRole('link')).toHaveText(['Audit log', 'Reports']);
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

  // The reports: the codes the help desk issued today, each report's CSV.
  await nav.getByRole('link', { name: 'Reports' }).click();
  await expect(page.getByTestId('report-issued')).toContainText(/[1-9]\d* in all/);
  await expectNoAxeViolations(page);
  const reportCsv = page.waitForEvent('download');
  await page.getByTestId('report-csv-issued').click();
  const counts = await readFile((await (await reportCsv).path()) ?? '', 'utf8');
  expect(counts.split('\n')[0]).toBe('metric,by,key,day,count');
  expect(counts).toContain('issued,source,help desk,');

  // The help desk is not theirs.
  await page.goto(`${origin}/admin/#/helpdesk`);
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  expect(await consoleFetch(page, 'helpdesk/users?q=demo')).toMatchObject({ status: 403 });
});

test('an administrator sets a group policy with the defaults in view, makes a service key shown once and reads the settings', async ({
  page,
  context,
}) => {
  // The longest journey of the console (three screens, three axe scans): 8 s alone, past the
  // usual 20 s beside the type check and lint in two runs of npm test. The deadline is a safety net.
  test.slow();
  await addVirtualAuthenticator(context, page);
  await signInToConsole(page, origin, 'ada');
  const nav = page.getByRole('navigation', { name: 'Console' });
  await expect(nav.getByRole('link')).toHaveText([
    'Help desk',
    'Audit log',
    'Reports',
    'Administration',
    'People',
  ]);
  await nav.getByRole('link', { name: 'Administration' }).click();
  await expect(page.getByTestId('groups')).toContainText('Codes on screen');
  await expectNoAxeViolations(page);

  // A new group for people who need more care: only administrators may give them a code.
  await page.getByLabel('Name').fill('Executives');
  await page.getByLabel('Priority').fill('50');
  await page.getByRole('button', { name: 'Add the group' }).click();
  await expect(page.getByText('The group Executives was added.')).toBeVisible();
  await page.getByRole('button', { name: 'Edit Executives' }).click();
  const editor = page.getByTestId('policy-editor');
  await expect(editor.getByText('Default: 10').first()).toBeVisible();
  await editor.getByLabel('Emergency codes allowed').check();
  await editor.getByLabel('Code length (6 to 64)').fill('3');
  await editor.getByRole('button', { name: 'Save the policy' }).click();
  await expect(editor.getByRole('alert')).toContainText('codeLength must be a whole number from 6 to 64');
  await editor.getByLabel('Code length (6 to 64)').fill('12');
  await editor.getByLabel('Help desk').uncheck();
  await expectNoAxeViolations(page);
  await editor.getByRole('button', { name: 'Save the policy' }).click();
  await expect(page.getByTestId('policy-saved')).toHaveText('The policy of Executives was saved.');
  const row = page.getByTestId('groups').getByRole('row', { name: /Executives/ });
  await expect(row).toContainText('allowed');
  await expect(row).not.toContainText('Help desk');

  // A service key is shown once, then only its name.
  await page.getByRole('link', { name: 'Service keys' }).click();
  // The form of the groups also has a Name: fill the service key's only once its view is shown.
  await expect(page.getByRole('heading', { name: 'Service keys' })).toBeVisible();
  await page.getByLabel('Name').fill('vpn gateway');
  await page.getByRole('button', { name: 'Create the key' }).click();
  const secret = (await page.getByTestId('service-key-secret').textContent()) ?? '';
  expect(secret).toMatch(/^dea_[0-9a-f-]{36}\.[\w-]{43}$/);
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await expect(page.getByTestId('service-keys')).toContainText('vpn gateway');
  await expect(page.locator('body')).not.toContainText(secret.split('.')[1] ?? 'none');
  await page.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('button', { name: 'Revoke vpn gateway now' }).click();
  await expect(page.getByTestId('service-keys')).toContainText('revoked');

  // The settings in effect, read-only, secrets never shown.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('Find a setting').fill('hash_cost');
  await expect(page.getByTestId('settings-table').locator('tbody tr')).toHaveText([
    /DEA_PASSWORD_HASH_COST\s*10\s*changed/,
  ]);
  await page.getByLabel('Find a setting').fill('DEA_SECRET');
  await expect(page.getByTestId('settings-table')).toContainText('not set');
  await expectNoAxeViolations(page);
});

test('the help desk neither finds nor helps a member of a group whose policy keeps it to administrators, and gives a disabled user nothing', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  dea(server, ['group', 'add-member', 'Executives', 'demo-channel']);
  await signInToConsole(page, origin, 'hugo');
  await page.getByLabel('Find the user').fill('Chris');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByText('Users found: 0')).toBeVisible();
  await expect(page.getByTestId('helpdesk-results')).toHaveCount(0);
  await expectNoAxeViolations(page);
  // A disabled user is found and shown, and gets nothing: the view says why.
  dea(server, ['user', 'disable', 'demo-off']);
  await page.getByLabel('Find the user').fill('Olivia');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByTestId('helpdesk-results').getByRole('link').first().click();
  await expect(page.getByTestId('issue-not-allowed')).toContainText('This user is disabled');
  await expect(page.getByRole('button', { name: /Issue a code|Send a code/ })).toHaveCount(0);
  await expectNoAxeViolations(page);
  dea(server, ['user', 'enable', 'demo-off']);
  expect(await consoleFetch(page, 'admin/groups')).toMatchObject({ status: 403 });
  await page.goto(`${origin}/admin/#/administration`);
  await expect(page.getByRole('heading', { name: 'Help a user' })).toBeVisible();
});

/** Presses Tab until the element has the focus, as a keyboard user moves through the page. */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let presses = 0; presses < 25; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error('not reachable by Tab');
}

test('the console in German by keyboard alone, then in Arabic from right to left', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await page.goto(enrolmentLinkOf('lena') ?? `${origin}/admin/`);
  await tabTo(page, page.getByTestId('console-language'));
  await page.getByTestId('console-language').selectOption('de');
  await expect(page.getByRole('heading', { name: 'Bei der Konsole anmelden' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');

  await tabTo(page, page.getByLabel('Benutzername der Konsole'));
  await page.keyboard.type('lena');
  await page.keyboard.press('Tab');
  await page.keyboard.type('a console password');
  await page.keyboard.press('Enter');
  const passkey = page.getByRole('button', { name: 'Passkey registrieren' });
  await expect(passkey).toBeVisible();
  await expectNoAxeViolations(page);
  await tabTo(page, passkey);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Prüfprotokoll' })).toBeVisible();
  await expect(page.getByTestId('console-account')).toContainText('Prüfer');
  // The event is chosen from the known ones: typed, the list selects it; then "Show".
  const event = page.getByTestId('audit-event');
  await expect(event.locator('option[value="console.passkey_registered"]')).toHaveCount(1);
  await tabTo(page, event);
  await page.keyboard.type('console.passkey_registered');
  await expect(event).toHaveValue('console.passkey_registered');
  await tabTo(page, page.getByTestId('audit-apply'));
  const filtered = page.waitForResponse((response) =>
    response.url().includes('event=console.passkey_registered'),
  );
  await page.keyboard.press('Enter');
  await filtered;
  const rows = page.getByTestId('audit-table').locator('tbody tr');
  await expect(rows.first()).toContainText('console:lena');
  for (const row of await rows.all()) await expect(row).toContainText('console.passkey_registered');
  await expectNoAxeViolations(page);

  await page.getByTestId('console-language').selectOption('ar');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.getByRole('heading', { name: 'سجل التدقيق' })).toBeVisible();
  await expectNoAxeViolations(page);
  // The language stays chosen for the next visit.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'سجل التدقيق' })).toBeVisible();
});

test('an administrator sees branding live and cleaned in the preview, without touching the console, then publishes it', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await signInToConsole(page, origin, 'bea');
  await page.goto(`${origin}/admin/#/administration/branding`);
  const preview = page.getByTestId('branding-preview');
  await expect(preview.locator('footer')).toContainText('Emergency Access');

  await page.getByLabel(/footerLeft/).fill('<b>ACME</b> IT <img src="x" alt="" onerror="window.hacked=1">');
  await page.getByLabel(/^CSS/).fill('.page-header { background: rgb(128, 0, 0); }');
  await expect(preview.locator('footer b')).toHaveText('ACME');
  expect(await preview.locator('footer img').getAttribute('onerror')).toBeNull();
  await expect(preview.locator('header.page-header')).toHaveCSS('background-color', 'rgb(128, 0, 0)');
  await expect(page.locator('header.console-header')).not.toHaveCSS('background-color', 'rgb(128, 0, 0)');
  expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
  await expectNoAxeViolations(page);

  await page.getByRole('button', { name: 'Save footerLeft' }).click();
  await expect(page.getByTestId('branding-done')).toHaveText('footerLeft was saved.');
  const login = await context.newPage();
  await login.goto(`${origin}/login/`);
  await expect(login.getByTestId('footer-left')).toContainText('ACME IT');
  await page.getByRole('button', { name: 'Reset footerLeft' }).click();
  await expect(page.getByTestId('branding-done')).toHaveText('footerLeft is back to the default.');
  await login.reload();
  await expect(login.getByTestId('footer-left')).not.toContainText('ACME');
});

test('an administrator edits the texts of a language beside English, checked before they reach the page', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await signInToConsole(page, origin, 'ted');
  await page.goto(`${origin}/admin/#/administration/texts`);
  await page.getByLabel('Language of the texts').selectOption('de');
  await expect(page.getByTestId('texts-missing')).toHaveText('Missing texts in this language: 0');
  await expectNoAxeViolations(page);

  // A placeholder that English has may not go missing.
  await page.getByLabel('Text of successMessage').fill('Gesendet.');
  await page.getByRole('button', { name: /Save changed texts/ }).click();
  await expect(page.getByRole('alert')).toContainText('placeholders none differ from English {recipient}');
  await page.getByLabel('Text of successMessage').fill('Ihr Code ging an {recipient}.');
  await page.getByLabel('Text of login.heading').fill('Anmeldung bei ACME');
  await page.getByRole('button', { name: 'Save changed texts (2)' }).click();
  await expect(page.getByTestId('texts-done')).toHaveText('Texts saved: 2');

  // A new language starts from English and is chosen for translation at once.
  // The summary that opens the form (the console's own text is a row of the table too).
  await page.locator('summary', { hasText: 'Add a language' }).click();
  await page.getByLabel('Language code').fill('sv');
  await page.getByLabel('Name in the language itself').fill('Svenska');
  await page.getByRole('button', { name: 'Add the language' }).click();
  await expect(page.getByTestId('texts-done')).toContainText('Svenska was added');
  await expect(page.getByLabel('Language of the texts')).toHaveValue('sv');
  await expect(page.getByLabel('Text of logout', { exact: true })).toHaveValue('Log out');

  // The login application in German shows the new heading at once (this instance's cache is dropped).
  const login = await context.newPage();
  await login.goto(`${origin}/login/`);
  await login.evaluate((key) => localStorage.setItem(key, 'de'), LOCAL_STORAGE_KEYS.lang);
  await login.reload();
  await expect(login.getByText('Anmeldung bei ACME')).toBeVisible();
});
