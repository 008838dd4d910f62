import {
  BUILT_IN_PAGE_TEXTS,
  CODE_COUNT_PER_REQUEST,
  PAGE_CALLS,
  PAGE_STARTUP_ELEMENT_ID,
  okEnvelope,
  pageCallKey,
  type PageCall,
} from '@dea/contract';
import { act, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { rememberChosenLanguage } from '../features/language/language-storage';
import {
  DISPLAY_POLICY,
  TEST_LANGUAGES,
  TEST_USER,
  envelopeError,
  httpStatus,
  installFakeServer,
  type FakeAnswer,
  type FakeServer,
  type RecordedCall,
  offContract,
} from '../testing/fake-server';
import { pageReady, renderPage } from '../testing/render-page';
import { testMessages, text } from '../testing/test-messages';

/**
 * Spec section 4's startup as a sequence, and its failures as section 8 lists them:
 * without the answers delivered with the HTML, every call of section 7 in the order of section 4,
 * one after the other; a code only once user info, languages, texts, branding and policy are in.
 */

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

const USER_ID = TEST_USER.userId;

/** A call as the page sent it, in the contract's terms (method, path, query, body). */
function asSent(call: RecordedCall): PageCall {
  const query = Object.fromEntries(call.query.entries());
  return {
    method: call.method as PageCall['method'],
    path: call.route,
    ...(Object.keys(query).length > 0 && { query }),
    ...(call.body !== undefined && { body: call.body }),
  };
}

/** A call as the contract describes it, without the query values it leaves out. */
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

const CREATE_CODE: PageCall = {
  method: 'POST',
  path: 'tempPass/create',
  body: {
    count: CODE_COUNT_PER_REQUEST,
    return: ['id', 'password'],
    attrs: { user: { id: USER_ID }, locale: 'en' },
  },
};

function sessionStorageNow(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (let index = 0; index < window.sessionStorage.length; index += 1) {
    const key = window.sessionStorage.key(index);
    if (key !== null) entries[key] = window.sessionStorage.getItem(key) ?? '';
  }
  return entries;
}

describe('without answers delivered with the page', () => {
  it('makes every call of section 7 in the order of section 4, one after the other', async () => {
    renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.calls.map(asSent)).toEqual([
      described(PAGE_CALLS.userInfo()),
      described(PAGE_CALLS.languageList()),
      described(PAGE_CALLS.userLocale(USER_ID)),
      described(PAGE_CALLS.messages('messages')),
      described(PAGE_CALLS.branding()),
      described(PAGE_CALLS.policy(USER_ID)),
      CREATE_CODE,
    ]);
    expect(server.overlapping).toEqual([]);
  });

  it('asks for the channels last when codes go by channel, and creates no code', async () => {
    server.channels({ mobile: '+49 *** ***12,ref-1' });
    renderPage();
    expect(await screen.findByRole('button', { name: text('en', 'content.channel.sms') })).toBeVisible();
    expect(server.calls.map(asSent)).toEqual([
      described(PAGE_CALLS.userInfo()),
      described(PAGE_CALLS.languageList()),
      described(PAGE_CALLS.userLocale(USER_ID)),
      described(PAGE_CALLS.messages('messages')),
      described(PAGE_CALLS.branding()),
      described(PAGE_CALLS.policy(USER_ID)),
      described(PAGE_CALLS.availableChannels(USER_ID)),
    ]);
    expect(server.overlapping).toEqual([]);
  });

  it("asks for the stored language's texts only after the list offers it, and no user locale", async () => {
    rememberChosenLanguage('de');
    renderPage();
    expect(await screen.findByText(text('de', 'content.yourCode'))).toBeVisible();
    expect(server.routesCalled()).toEqual([
      'POST userinfo',
      'GET resourceFile/getLanguageList',
      'GET message',
      'POST customizationConfig/getCurrentConfig',
      'POST user/getPolicy',
      'POST tempPass/create',
    ]);
    expect(server.callsTo('GET message')[0]?.query.get('lang')).toBe('de');
    expect(server.overlapping).toEqual([]);
  });

  it.each([
    ['POST userinfo', 'GET resourceFile/getLanguageList'],
    ['GET resourceFile/getLanguageList', 'POST user/get'],
    ['POST user/get', 'GET message'],
    ['GET message', 'POST customizationConfig/getCurrentConfig'],
    ['POST customizationConfig/getCurrentConfig', 'POST user/getPolicy'],
    ['POST user/getPolicy', 'POST tempPass/create'],
  ])('waits for %s before %s', async (held, next) => {
    const gate = server.hold(held);
    renderPage();
    await waitFor(() => expect(server.callsTo(held)).toHaveLength(1));
    // The effects of the render that made the held call have run: a call beside it would be made.
    await act(async () => undefined);
    expect(server.callsTo(next)).toHaveLength(0);
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
    gate.release();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.callsTo(next)).toHaveLength(1);
    // Nothing was asked for while the held call waited.
    expect(server.overlapping).toEqual([]);
  });
});

describe('with answers delivered with the page', () => {
  function deliverWithPage(calls: [PageCall, unknown][]): void {
    const block = document.createElement('script');
    block.type = 'application/json';
    block.id = PAGE_STARTUP_ELEMENT_ID;
    block.textContent = JSON.stringify(
      Object.fromEntries(calls.map(([call, answer]) => [pageCallKey(call), answer])),
    );
    document.body.append(block);
  }

  it('asks for a code only once the texts of a stored language are in', async () => {
    rememberChosenLanguage('de');
    deliverWithPage([
      [PAGE_CALLS.userInfo(), TEST_USER],
      [PAGE_CALLS.languageList(), okEnvelope(TEST_LANGUAGES)],
      [PAGE_CALLS.messages('messages'), testMessages('en')],
      [PAGE_CALLS.branding(), okEnvelope([])],
      [PAGE_CALLS.policy(USER_ID), okEnvelope({ options: DISPLAY_POLICY })],
    ]);
    const texts = server.hold('GET message');
    renderPage();
    await waitFor(() => expect(server.callsTo('GET message')).toHaveLength(1));
    await act(async () => undefined);
    expect(server.routesCalled()).toEqual(['GET message']);
    texts.release();
    expect(await screen.findByText(text('de', 'content.yourCode'))).toBeVisible();
    expect(server.routesCalled()).toEqual(['GET message', 'POST tempPass/create']);
  });
});

/** What fails, how: an HTTP error, and a body that cannot be read. */
const FAILURES: [string, FakeAnswer][] = [
  ['HTTP 500', httpStatus(500)],
  ['a body that cannot be read', { raw: '<html>proxy error</html>' }],
];

describe('a startup call that fails (spec section 8)', () => {
  describe.each(FAILURES)('with %s', (_, failure) => {
    it.each(['POST userinfo', 'GET resourceFile/getLanguageList', 'GET message'])(
      '%s: the built-in English failure, no later call, no code, session storage unchanged',
      async (route) => {
        vi.spyOn(console, 'error').mockImplementation(() => undefined);
        window.sessionStorage.setItem('username', 'dana');
        const before = sessionStorageNow();
        server.answer(route, failure);
        renderPage();
        expect(await screen.findByRole('alert')).toHaveTextContent(BUILT_IN_PAGE_TEXTS.en['error.generic']);
        expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
          BUILT_IN_PAGE_TEXTS.en['content.unavailableTitle'],
        );
        expect(screen.getByRole('main')).toBeVisible();
        expect(server.routesCalled().at(-1)).toBe(route);
        expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
        expect(sessionStorageNow()).toEqual(before);
      },
    );
  });

  it('GET message answering a body that is not a dictionary is a failure too', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('GET message', offContract({ body: ['not', 'texts'] }, 'texts that are not a dictionary'));
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent(BUILT_IN_PAGE_TEXTS.en['error.generic']);
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
    expect(sessionStorageNow()).toEqual({});
  });

  it.each([
    ['POST user/getPolicy', 'the generic text', httpStatus(500), text('en', 'error.generic')],
    ['POST user/getPolicy', "the server's message", envelopeError(3, 'Policy refused'), 'Policy refused'],
  ])('%s: %s in the translated page, no code', async (route, _, failure, shown) => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer(route, failure);
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(shown);
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
    // Only the language the texts were loaded in is kept (spec section 4); no code.
    expect(sessionStorageNow()).toEqual({ lang: 'en' });
  });

  it('POST user/queryAvailableChannels: the generic text, no code', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.channels({}).answer('POST user/queryAvailableChannels', httpStatus(500));
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(text('en', 'error.generic'));
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
    expect(sessionStorageNow()).toEqual({ lang: 'en' });
  });

  it("POST user/get: 'Unable to fetch user locale', and the startup goes on (spec section 8)", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST user/get', httpStatus(500));
    renderPage();
    expect(await screen.findByTestId('emergency-code')).toBeVisible();
    expect(screen.getByTestId('page-error')).toHaveTextContent(
      text('en', 'error.userLocale', { message: text('en', 'error.generic') }),
    );
    expect(server.overlapping).toEqual([]);
  });

  it('POST customizationConfig/getCurrentConfig: the defaults, and the startup goes on (spec section 8)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST customizationConfig/getCurrentConfig', httpStatus(500));
    renderPage();
    await pageReady();
    expect(await screen.findByTestId('emergency-code')).toBeVisible();
    expect(server.routesCalled().slice(-2)).toEqual(['POST user/getPolicy', 'POST tempPass/create']);
  });
});

describe("a server with only the spec's calls (ADR 0013: where the page differs on the wire)", () => {
  it('gets the spec page: no expiry kept, and a new code even though tempPass/revoke is unknown', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // The spec's policy options only (section 3), and no revoke route.
    server.answer(
      'POST user/getPolicy',
      offContract(
        {
          body: {
            error: 0,
            message: '',
            result: { options: { enableECode: true, emergencyCodeDelivery: 'Display' } },
          },
        },
        "the spec's server, whose options are fewer than this server's",
      ),
    );
    server.answer('POST tempPass/revoke', {
      status: 404,
      body: { error: 2, message: 'not found', result: null },
    });
    const { user } = renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(screen.getByText(text('en', 'content.yourCode'))).toBeVisible();
    expect(screen.queryByTestId('code-validity')).toBeNull();
    // Spec section 9's session keys only.
    expect(sessionStorageNow()).toEqual({
      lang: 'en',
      emergencyCode: 'CODE1ABCDE',
      emergencyCodeId: 'code-1',
    });

    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    expect(await screen.findByText('CODE2ABCDE')).toBeVisible();
    expect(screen.queryByTestId('page-error')).toBeNull();
    expect(server.routesCalled().slice(-2)).toEqual(['POST tempPass/revoke', 'POST tempPass/create']);
    expect(sessionStorageNow()).toEqual({
      lang: 'en',
      emergencyCode: 'CODE2ABCDE',
      emergencyCodeId: 'code-2',
    });
  });
});
