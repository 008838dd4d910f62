import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './scenarios';
import { SCENARIO_PASSWORD_HASH_COST, type RunningServer } from './start-server';

/** Steps of the console's scenarios: accounts made with the CLI, sign-in through the console's own form. */

const cli = join(fileURLToPath(new URL('../..', import.meta.url)), 'apps/server/dist/dea.js');
export const CONSOLE_PASSWORD = 'a console password';

/** `dea ...` as an operator runs it, on the server's store, knowing where the console is. */
export function dea(server: RunningServer, args: string[], input = ''): string {
  return execFileSync(process.execPath, [cli, ...args], {
    env: {
      ...process.env,
      DEA_DATA_DIR: server.dataDir,
      DATABASE_URL: '',
      // The servers' own cost: at the default one, `user add` took 1.2 CPU-seconds instead of 0.5.
      DEA_PASSWORD_HASH_COST: SCENARIO_PASSWORD_HASH_COST,
      DEA_CONSOLE_URL: `${consoleOrigin(server)}/admin/`,
    },
    input,
    encoding: 'utf8',
  });
}

/** The enrolment link `dea admin add` printed for each account, until its first passkey. */
const enrolmentLinks = new Map<string, string>();

/** The link in what `dea admin add` or `dea admin reset-passkeys` printed. */
export function enrolmentLinkIn(output: string): string {
  const link = /^https?:\/\/\S+#enrol=[A-Za-z0-9_-]+$/m.exec(output)?.[0];
  if (link === undefined) throw new Error(`no enrolment link in: ${output}`);
  return link;
}

/** The account's enrolment link, handed over once: the next sign-in opens the console plainly. */
export function enrolmentLinkOf(username: string): string | undefined {
  const link = enrolmentLinks.get(username);
  enrolmentLinks.delete(username);
  return link;
}

/** `dea admin add` with the console password on standard input; answers the enrolment link it printed. */
export function addConsoleAccount(
  server: RunningServer,
  username: string,
  role: 'admin' | 'helpdesk' | 'auditor',
  displayName: string,
): string {
  const output = dea(
    server,
    [
      'admin',
      'add',
      '--username',
      username,
      '--role',
      role,
      '--display-name',
      displayName,
      '--password-stdin',
    ],
    `${CONSOLE_PASSWORD}\n`,
  );
  const link = enrolmentLinkIn(output);
  enrolmentLinks.set(username, link);
  return link;
}

/** WebAuthn needs a host name, not an IP address: the console is reached as localhost. */
export const consoleOrigin = (server: RunningServer): string =>
  server.baseUrl.replace('127.0.0.1', 'localhost');

/** Chromium's virtual authenticator (CDP): a passkey that verifies its user, as a phone would. */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
}

/**
 * The password form, then the passkey step: the first time through the account's enrolment link,
 * which registers its passkey.
 */
export async function signInToConsole(page: Page, origin: string, username: string): Promise<void> {
  await page.goto(enrolmentLinkOf(username) ?? `${origin}/admin/`);
  await page.getByLabel('Console user name').fill(username);
  await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  const step = page.getByRole('button', { name: /Register a passkey|Use my passkey/ });
  await step.click();
  await expect(page.getByTestId('console-account')).toBeVisible();
}

/** A console call from the page, with the session's cookie and token, as the console makes it. */
export async function consoleFetch(
  page: Page,
  path: string,
  body?: unknown,
): Promise<{ status: number; error: number | undefined }> {
  return page.evaluate(
    async ({ path, body }) => {
      const token = /(?:^|; )dea_console_token=([^;]*)/.exec(document.cookie)?.[1] ?? '';
      const response = await fetch(`/dea/admin-api/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', 'x-console-token': token },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const answer = (await response.json().catch(() => null)) as { error?: number } | null;
      return { status: response.status, error: answer?.error };
    },
    { path, body },
  );
}

/**
 * The console's accessibility check: the WCAG rules every spec holds, and axe's landmark-unique
 * (each region, navigation and form named apart), which the console's labelled tables need.
 */
export async function expectConsoleAccessible(page: Page): Promise<void> {
  await expectNoAxeViolations(page, ['landmark-unique']);
}

/** At a 390 px wide phone the console fits: the page and each of its tables, nothing sideways. */
export async function expectConsoleFitsPhone(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth - window.innerWidth,
    tables: Array.from(document.querySelectorAll<HTMLElement>('.table-scroll')).map(
      (region) => `${region.getAttribute('aria-label') ?? '?'}: ${region.scrollWidth - region.clientWidth}`,
    ),
  }));
  expect(overflow.page).toBeLessThanOrEqual(0);
  expect(overflow.tables.filter((entry) => !entry.endsWith(': 0'))).toEqual([]);
}
