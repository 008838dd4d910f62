import {
  ErrorNumber,
  PAGE_CALLS,
  PAGE_STARTUP_ELEMENT_ID,
  okEnvelope,
  pageCallKey,
  type PageCall,
  type PageStartupAnswers,
} from '@dea/contract';
import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { rememberChosenLanguage } from '../features/language/language-storage';
import { storeCode } from '../shared/code-storage';
import {
  DISPLAY_POLICY,
  TEST_LANGUAGES,
  TEST_USER,
  envelopeError,
  installFakeServer,
  type FakeServer,
} from '../testing/fake-server';
import { renderPage } from '../testing/render-page';
import { testMessages, text } from '../testing/test-messages';
import { askCodeOnLoad, takeCodeAskedOnLoad, createCodeRequest } from './code-on-load';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
  // No call asked for by an earlier test waits for this one.
  void takeCodeAskedOnLoad(createCodeRequest('', ''));
});

/** Puts the answers in the document as the server's HTML carries them (page-html-route.ts). */
function deliverWithPage(answers: PageStartupAnswers): void {
  const block = document.createElement('script');
  block.type = 'application/json';
  block.id = PAGE_STARTUP_ELEMENT_ID;
  block.textContent = JSON.stringify(answers);
  document.body.append(block);
}

/** What the server answers for the test user with the display policy, in English. */
function startupAnswers(options: { policy?: Partial<typeof DISPLAY_POLICY>; without?: PageCall } = {}) {
  const userId = TEST_USER.userId;
  const answers: [PageCall, unknown][] = [
    [PAGE_CALLS.userInfo(), TEST_USER],
    [PAGE_CALLS.languageList(), okEnvelope(TEST_LANGUAGES)],
    [PAGE_CALLS.userLocale(userId), okEnvelope({ id: userId, userLocale: TEST_USER.userLocale })],
    [PAGE_CALLS.messages('messages'), testMessages('en')],
    [PAGE_CALLS.branding(), okEnvelope([])],
    [PAGE_CALLS.policy(userId), okEnvelope({ options: { ...DISPLAY_POLICY, ...options.policy } })],
  ];
  return Object.fromEntries(
    answers
      .filter(([call]) => options.without === undefined || pageCallKey(call) !== pageCallKey(options.without))
      .map(([call, answer]) => [pageCallKey(call), answer]),
  );
}

describe("the code asked for beside the page's scripts", () => {
  it('is sent by the first script, as the page sends it, and the page shows its answer without asking again', async () => {
    document.cookie = 'XSRF-TOKEN=token-123; path=/';
    deliverWithPage(startupAnswers());
    askCodeOnLoad();
    // Sent before the page starts, and the data block left for the page.
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
    expect(document.getElementById(PAGE_STARTUP_ELEMENT_ID)).not.toBeNull();
    const early = server.callsTo('POST tempPass/create')[0];
    expect(early?.body).toEqual({
      count: 1,
      return: ['id', 'password'],
      attrs: { user: { id: TEST_USER.userId }, locale: 'en' },
    });
    expect(early?.headers.get('X-XSRF-TOKEN')).toBe('token-123');
    expect(early?.headers.get('Accept-Language')).toBe('en');

    renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
  });

  it('gives the page the same error and state as its own call would', async () => {
    const refusal = envelopeError(ErrorNumber.codeStoreFull, 'Too many unused codes');
    server.answer('POST tempPass/create', refusal);
    deliverWithPage(startupAnswers());
    askCodeOnLoad();
    renderPage();
    expect(await screen.findByText('Too many unused codes')).toBeVisible();
    await waitFor(() => expect(screen.getByTestId('code-panel').dataset.storeFull).toBe('true'));
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
  });

  it('leaves the page on its way while the answer is on its way, then shows the code', async () => {
    const held = server.hold('POST tempPass/create');
    deliverWithPage(startupAnswers());
    askCodeOnLoad();
    renderPage();
    expect(await screen.findByTestId('code-panel')).toBeVisible();
    expect(screen.queryByTestId('emergency-code')).toBeNull();
    held.release();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
  });

  it('is not sent when the startup would not ask for a code at once; the page then does as without it', async () => {
    const cases: [string, () => void][] = [
      [
        'codes go by channel',
        () => deliverWithPage(startupAnswers({ policy: { emergencyCodeDelivery: 'Channel' } })),
      ],
      ['emergency codes are off', () => deliverWithPage(startupAnswers({ policy: { enableECode: false } }))],
      [
        'the policy did not come with the page',
        () => deliverWithPage(startupAnswers({ without: PAGE_CALLS.policy(TEST_USER.userId) })),
      ],
      [
        'the texts of the chosen language did not come with the page',
        () => {
          rememberChosenLanguage('de');
          deliverWithPage(startupAnswers());
        },
      ],
      [
        'the tab keeps a code',
        () => {
          storeCode({ id: 'kept', password: 'KEPT123456' });
          deliverWithPage(startupAnswers());
        },
      ],
      [
        'the logout landing',
        () => {
          window.history.replaceState(null, '', '/dea/#/logoutLanding');
          deliverWithPage(startupAnswers());
        },
      ],
      ['no answers came with the page', () => undefined],
    ];
    for (const [what, arrange] of cases) {
      arrange();
      askCodeOnLoad();
      expect(server.routesCalled(), what).toEqual([]);
      for (const block of document.querySelectorAll(`#${PAGE_STARTUP_ELEMENT_ID}`)) block.remove();
      localStorage.clear();
      sessionStorage.clear();
      window.history.replaceState(null, '', '/dea/');
    }
  });

  it('keeps the code in the tab when it comes, so a page whose scripts never start loses it not, and a reload asks for none', async () => {
    deliverWithPage(startupAnswers());
    const before = Date.now();
    askCodeOnLoad();
    // The page's scripts never take the call (they failed to load): the first script keeps the code.
    await waitFor(() => expect(sessionStorage.getItem('emergencyCode')).toBe('CODE1ABCDE'));
    expect(sessionStorage.getItem('emergencyCodeId')).toBe('code-1');
    const expiresAt = Number(sessionStorage.getItem('emergencyCodeExpiresAt'));
    expect(expiresAt).toBeGreaterThanOrEqual(before + DISPLAY_POLICY.codeValidityMinutes * 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + DISPLAY_POLICY.codeValidityMinutes * 60_000);
    void takeCodeAskedOnLoad(createCodeRequest(TEST_USER.userId, 'en'));

    // The reload: the same answers with the page, the code kept in the tab.
    for (const block of document.querySelectorAll(`#${PAGE_STARTUP_ELEMENT_ID}`)) block.remove();
    deliverWithPage(startupAnswers());
    askCodeOnLoad();
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
    // Once the page's scripts start, they show the kept code without a call.
    renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
  });

  it('keeps nothing when the answer is a refusal', async () => {
    server.answer('POST tempPass/create', envelopeError(ErrorNumber.codeStoreFull, 'Too many unused codes'));
    deliverWithPage(startupAnswers());
    askCodeOnLoad();
    await takeCodeAskedOnLoad(createCodeRequest(TEST_USER.userId, 'en'));
    await Promise.resolve();
    expect(sessionStorage.getItem('emergencyCode')).toBeNull();
  });

  it('is taken only for the same user and language, once', () => {
    deliverWithPage(startupAnswers());
    askCodeOnLoad();
    expect(takeCodeAskedOnLoad(createCodeRequest(TEST_USER.userId, 'de'))).toBeUndefined();
    deliverWithPage(startupAnswers());
    askCodeOnLoad();
    expect(takeCodeAskedOnLoad(createCodeRequest(TEST_USER.userId, 'en'))).toBeDefined();
    expect(takeCodeAskedOnLoad(createCodeRequest(TEST_USER.userId, 'en'))).toBeUndefined();
  });

  it("asks in the language the page will speak: the user's locale among the answers", async () => {
    const answers = startupAnswers();
    answers[pageCallKey(PAGE_CALLS.userLocale(TEST_USER.userId))] = okEnvelope({
      id: TEST_USER.userId,
      userLocale: 'de',
    });
    answers[pageCallKey(PAGE_CALLS.messages('messages_de'))] = testMessages('de');
    deliverWithPage(answers);
    askCodeOnLoad();
    const early = server.callsTo('POST tempPass/create')[0];
    expect(early?.body).toMatchObject({ attrs: { locale: 'de' } });
    expect(early?.headers.get('Accept-Language')).toBe('de');
    renderPage();
    expect(await screen.findByText(text('de', 'content.yourCode'))).toBeVisible();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
  });
});
