import { PAGE_STARTUP_ELEMENT_ID } from '@dea/contract';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type Route } from '@playwright/test';
import axe from 'axe-core';

/** The source AxeBuilder evaluates where axe's own is already in the document: nothing. */
const AXE_ALREADY_IN_PAGE = ';';

/** Steps the scenarios are written in: goTo*, signIn*, click*, expect*. */

export const DEMO_PASSWORD = 'demo';

export async function signInAs(page: Page, username: string): Promise<void> {
  const response = await page.request.post('/login/api/session', {
    data: { username, password: DEMO_PASSWORD },
  });
  expect(response.ok(), `sign-in of ${username}`).toBe(true);
}

export const signInForm = (page: Page) => page.getByRole('form', { name: 'Log in to Emergency Access' });

export async function goToLogin(page: Page, query = ''): Promise<void> {
  await page.goto(`/login/${query}`);
  await expect(signInForm(page)).toBeVisible();
}

/** Signs in through the form, as a person does: type, then press Enter. */
export async function fillSignInForm(page: Page, username: string, password = DEMO_PASSWORD): Promise<void> {
  const form = signInForm(page);
  await form.getByRole('textbox', { name: 'User name' }).fill(username);
  await form.getByLabel('Password').fill(password);
  await form.getByLabel('Password').press('Enter');
}

/** The one alert of the login application: a missing field, a refusal or a lockout. */
export const signInAlert = (page: Page) => page.getByRole('alert');

export async function goToPage(page: Page): Promise<void> {
  await page.goto('/dea/');
}

export async function goToLogoutLanding(page: Page, ep: string): Promise<void> {
  await page.goto(`/dea/#/logoutLanding?ep=${encodeURIComponent(ep)}`);
}

export const code = (page: Page) => page.getByTestId('emergency-code');

export async function expectCodeShown(page: Page): Promise<string> {
  await expect(code(page)).toHaveText(/^[0-9A-Z]{6,}$/);
  return (await code(page).textContent()) ?? '';
}

export async function clickRequestNewCode(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Request a new code' }).click();
}

export async function openUserMenu(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'User menu' }).click();
}

export async function clickLogoutInMenu(page: Page): Promise<void> {
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Log out' }).click();
}

/** At a 320 px wide phone the page fits: nothing sticks out sideways. */
export async function expectFitsNarrowPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 320, height: 640 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/**
 * Zero violations of the WCAG 2.1 A and AA rules, and of `extraRules` (axe rules outside those
 * tags), in one run of axe. Legacy mode runs axe.run in the page itself: the default opens a blank
 * page to finish a run across cross-origin frames, which the product's pages never hold (its HTML
 * sanitizer takes iframes out), and took twice the wall time and CPU of the scenarios' worker a
 * check (docs/benchmarks.md). axe's source (half a megabyte) goes into a document once, as
 * cypress-axe's injectAxe puts it: AxeBuilder evaluates the source it is given twice a check
 * (`analyze`, then `inject` for each frame), here a statement that does nothing once `window.axe`
 * is there, so a page checked again after a step (a console view, a dialog) runs only axe.run.
 * axe details the violations only (`resultTypes`): the rules that pass or do not apply are still
 * run, but not each of their elements described, about 7% of the scenarios' CPU (docs/benchmarks.md);
 * e2e/specs/axe-check.spec.ts shows that the check still fails on a violation, naming it.
 */
export async function expectNoAxeViolations(page: Page, extraRules: readonly string[] = []): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const results = await new AxeBuilder({ page, axeSource: AXE_ALREADY_IN_PAGE })
    .setLegacyMode(true)
    .options({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      rules: Object.fromEntries(extraRules.map((rule) => [rule, { enabled: true }])),
      resultTypes: ['violations'],
    })
    .analyze();
  const summary = results.violations.map((violation) => ({
    id: violation.id,
    nodes: violation.nodes.map((node) => node.target.join(' ')),
  }));
  expect(summary).toEqual([]);
}

/** Answers an /dea/api/ call with an envelope error, as the server would for a business failure. */
export function envelopeError(error: number, message: string) {
  return (route: Route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ error, message, result: null }),
    });
}

export function envelope(result: unknown) {
  return (route: Route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ error: 0, message: '', result }),
    });
}

/**
 * Serves the page's HTML without the startup answers it carries for the signed-in user, so the
 * page makes its startup calls itself: for scenarios that change what one of those calls answers.
 */
export async function withoutStartupAnswers(page: Page): Promise<void> {
  await page.route(/\/dea\/(index\.html)?(\?[^#]*)?$/, async (route) => {
    if (route.request().resourceType() !== 'document') return route.fallback();
    const response = await route.fetch();
    const html = (await response.text()).replace(
      new RegExp(`<script type="application/json" id="${PAGE_STARTUP_ELEMENT_ID}">[^<]*</script>`),
      '',
    );
    const headers = { ...response.headers() };
    // The body is sent again as text: not in the encoding the server chose.
    delete headers['content-encoding'];
    delete headers['content-length'];
    return route.fulfill({ status: response.status(), headers, body: html });
  });
}
