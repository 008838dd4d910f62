import {
  CODE_COUNT_PER_REQUEST,
  PAGE_CALLS,
  choosePageLanguage,
  messageFileName,
  type Language,
  type PageCall,
} from '@dea/contract';
import { expect, type Page, type Request, type Route } from '@playwright/test';
import {
  expectCodeShown,
  expectNoAxeViolations,
  goToPage,
  signInAs,
  withoutStartupAnswers,
} from '../support/scenarios';
import { onOwnServer } from '../support/own-server';

/**
 * Spec section 4's startup against the real server, with the answers it embeds in the HTML taken
 * out (a server that implements only the spec's calls): every call of section 7, in order, one
 * after the other; and a failing language list or texts stop it before any code.
 */

// A server of its own: these scenarios issue codes to 'demo', which code-on-screen.spec.ts counts.
const { test } = onOwnServer();

test.describe.configure({ mode: 'serial' });

interface SentCall {
  call: PageCall;
  request: Request;
}

/**
 * Records the page's calls under /dea/api/ as the contract describes calls, and those started
 * while another was still waiting for its answer.
 */
function recordCalls(page: Page): { calls: SentCall[]; overlapping: string[] } {
  const calls: SentCall[] = [];
  const overlapping: string[] = [];
  const open = new Set<Request>();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/dea/api/')) return;
    const path = url.pathname.slice('/dea/api/'.length);
    const method = request.method() as PageCall['method'];
    const query = Object.fromEntries(url.searchParams.entries());
    if (open.size > 0) overlapping.push(`${method} ${path}`);
    open.add(request);
    calls.push({
      request,
      call: {
        method,
        path,
        ...(Object.keys(query).length > 0 && { query }),
        ...(method !== 'GET' && { body: request.postDataJSON() as unknown }),
      },
    });
  });
  const done = (request: Request) => open.delete(request);
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return { calls, overlapping };
}

/** A call as the contract builds it, without the query values it leaves out. */
function described(call: PageCall): PageCall {
  const query = Object.fromEntries(
    Object.entries(call.query ?? {}).filter(([, value]) => value !== undefined),
  );
  return {
    method: call.method,
    path: call.path,
    ...(Object.keys(query).length > 0 && { query }),
    ...(call.body !== undefined && { body: call.body }),
  };
}

async function answerOf<T>(sent: SentCall | undefined): Promise<T> {
  const response = await sent?.request.response();
  if (!response) throw new Error('the call has no answer');
  return (await response.json()) as T;
}

/** What the page must have asked for, from what the server answered its first calls. */
async function expectedStartup(calls: SentCall[]): Promise<{ userId: string; calls: PageCall[] }> {
  const { userId } = await answerOf<{ userId: string }>(calls[0]);
  const languages = (await answerOf<{ result: Language[] }>(calls[1])).result;
  const userLocale = (await answerOf<{ result: { userLocale?: string } }>(calls[2])).result.userLocale;
  const language = choosePageLanguage({ stored: undefined, userLocale, browserLanguage: 'en-US' }, languages);
  return {
    userId,
    calls: [
      PAGE_CALLS.userInfo(),
      PAGE_CALLS.languageList(),
      PAGE_CALLS.userLocale(userId),
      PAGE_CALLS.messages(messageFileName(language)),
      PAGE_CALLS.branding(),
      PAGE_CALLS.policy(userId),
    ].map(described),
  };
}

test('without the startup answers the page makes every call of section 7 in the order of section 4, one after the other', async ({
  page,
}) => {
  await signInAs(page, 'demo');
  await withoutStartupAnswers(page);
  const recorded = recordCalls(page);
  await goToPage(page);
  await expectCodeShown(page);

  const expected = await expectedStartup(recorded.calls);
  expect(recorded.calls.map((sent) => sent.call)).toEqual([
    ...expected.calls,
    {
      method: 'POST',
      path: 'tempPass/create',
      body: {
        count: CODE_COUNT_PER_REQUEST,
        return: ['id', 'password'],
        attrs: { user: { id: expected.userId }, locale: 'en' },
      },
    },
  ]);
  expect(recorded.overlapping).toEqual([]);
});

test("with the startup answers in the HTML the code is asked for once, by the first script, beside the page's chunks", async ({
  page,
}) => {
  await signInAs(page, 'demo');
  const recorded = recordCalls(page);
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  // The page's own entry is held until the code has been asked for: only the first script can.
  let codeAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => {
    codeAsked = resolve;
  });
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/dea/api/tempPass/create') codeAsked();
  });
  await page.route(/\/dea\/assets\/dea-[\w-]+\.js$/, async (route) => {
    await asked;
    await route.continue();
  });
  await goToPage(page);
  const shown = await expectCodeShown(page);

  expect(recorded.calls.map((sent) => `${sent.call.method} ${sent.call.path}`)).toEqual([
    'POST tempPass/create',
  ]);
  const created = await answerOf<{ result: { rows: { password: string }[] } }>(recorded.calls[0]);
  expect(created.result.rows[0]?.password).toBe(shown);
  // The page's small first script, which asked for it.
  expect(scripts).toContainEqual(expect.stringMatching(/^\/dea\/assets\/code-on-load-[\w-]+\.js$/));
  expect(await recorded.calls[0]?.request.headerValue('x-xsrf-token')).toBeTruthy();

  // A reload of the tab shows the code it keeps: no code asked for, by either script.
  await page.reload();
  await expect(page.getByTestId('emergency-code')).toHaveText(shown);
  expect(recorded.calls.filter((sent) => sent.call.path === 'tempPass/create')).toHaveLength(1);
});

test('by channel, the channels are the last call of the startup and no code is created', async ({ page }) => {
  await signInAs(page, 'demo-channel');
  await withoutStartupAnswers(page);
  const recorded = recordCalls(page);
  await goToPage(page);
  await expect(page.getByRole('button', { name: /text message/i }).first()).toBeVisible();

  const expected = await expectedStartup(recorded.calls);
  expect(recorded.calls.map((sent) => sent.call)).toEqual([
    ...expected.calls,
    described(PAGE_CALLS.availableChannels(expected.userId)),
  ]);
  expect(recorded.overlapping).toEqual([]);
});

const FAILURES: [string, (route: Route) => Promise<void>][] = [
  ['HTTP 500', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{}' })],
  [
    'a body that cannot be read',
    (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<html>proxy error</html>' }),
  ],
];

const FAILING_CALLS: [string, RegExp, string][] = [
  ['GET message', /\/dea\/api\/message(\?.*)?$/, 'message'],
  [
    'GET resourceFile/getLanguageList',
    /\/dea\/api\/resourceFile\/getLanguageList(\?.*)?$/,
    'resourceFile/getLanguageList',
  ],
];

for (const [callName, pattern, path] of FAILING_CALLS) {
  for (const [how, fail] of FAILURES) {
    test(`${callName} failing (${how}) says 'An error occurred', creates no code and keeps nothing in the session`, async ({
      page,
    }) => {
      await signInAs(page, 'demo');
      await withoutStartupAnswers(page);
      await page.route(pattern, fail);
      const recorded = recordCalls(page);
      await goToPage(page);

      await expect(page.getByRole('alert')).toHaveText('An error occurred, please try again later');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(
        'Emergency access cannot be shown right now',
      );
      // The startup stopped at the failed call.
      expect(recorded.calls.at(-1)?.call.path).toBe(path);
      expect(recorded.calls.map((sent) => sent.call.path)).not.toContain('tempPass/create');
      expect(await page.evaluate(() => ({ ...sessionStorage }))).toEqual({});
      await expectNoAxeViolations(page);
    });
  }
}
