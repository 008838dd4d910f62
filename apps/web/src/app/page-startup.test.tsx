import {
  PAGE_CALLS,
  PAGE_STARTUP_ELEMENT_ID,
  okEnvelope,
  pageCallKey,
  type ChannelMap,
  type PageCall,
  type PageStartupAnswers,
} from '@dea/contract';
import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { rememberChosenLanguage } from '../features/language/language-storage';
import {
  DISPLAY_POLICY,
  TEST_LANGUAGES,
  TEST_USER,
  installFakeServer,
  type FakeServer,
} from '../testing/fake-server';
import { pageReady, renderPage } from '../testing/render-page';
import { testMessages, text } from '../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

/** Puts the answers in the document as the server's HTML carries them (page-html-route.ts). */
function deliverWithPage(answers: PageStartupAnswers | string): void {
  const block = document.createElement('script');
  block.type = 'application/json';
  block.id = PAGE_STARTUP_ELEMENT_ID;
  block.textContent = typeof answers === 'string' ? answers : JSON.stringify(answers);
  document.body.append(block);
}

/** What the server answers for the test user with the display policy, in English. */
function startupAnswers(
  options: { userId?: string; policy?: Partial<typeof DISPLAY_POLICY>; channels?: ChannelMap } = {},
): PageStartupAnswers {
  const userId = options.userId ?? TEST_USER.userId;
  const answers: [PageCall, unknown][] = [
    [PAGE_CALLS.userInfo(), TEST_USER],
    [PAGE_CALLS.languageList(), okEnvelope(TEST_LANGUAGES)],
    [PAGE_CALLS.userLocale(userId), okEnvelope({ id: userId, userLocale: TEST_USER.userLocale })],
    [PAGE_CALLS.messages('messages'), testMessages('en')],
    [PAGE_CALLS.branding(), okEnvelope([])],
    [PAGE_CALLS.policy(userId), okEnvelope({ options: { ...DISPLAY_POLICY, ...options.policy } })],
  ];
  if (options.channels) answers.push([PAGE_CALLS.availableChannels(userId), okEnvelope(options.channels)]);
  return Object.fromEntries(answers.map(([call, answer]) => [pageCallKey(call), answer]));
}

describe('startup answers delivered with the page', () => {
  it('takes them instead of calling: only the code is asked for, and the data block goes', async () => {
    deliverWithPage(startupAnswers());
    renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.routesCalled()).toEqual(['POST tempPass/create']);
    expect(server.callsTo('POST tempPass/create')[0]?.body).toMatchObject({
      attrs: { user: { id: TEST_USER.userId }, locale: 'en' },
    });
    expect(document.getElementById(PAGE_STARTUP_ELEMENT_ID)).toBeNull();
  });

  it('needs no call at all before the channel menus when codes go by channel', async () => {
    deliverWithPage(
      startupAnswers({
        policy: { emergencyCodeDelivery: 'Channel' },
        channels: { mobile: '+49 *** ***12,ref-1' },
      }),
    );
    renderPage();
    await pageReady();
    expect(await screen.findByRole('button', { name: text('en', 'content.channel.sms') })).toBeVisible();
    expect(server.routesCalled()).toEqual([]);
  });

  it('asks for the texts itself when the language stored in the browser is another', async () => {
    rememberChosenLanguage('de');
    deliverWithPage(startupAnswers());
    renderPage();
    expect(await screen.findByText(text('de', 'content.yourCode'))).toBeVisible();
    expect(server.routesCalled().sort()).toEqual(['GET message', 'POST tempPass/create']);
    expect(server.callsTo('GET message')[0]?.query.get('lang')).toBe('de');
    localStorage.clear();
  });

  it('makes every call whose answer did not come, exactly as without answers', async () => {
    // Answers for another user: only the calls that do not name the user are answered.
    deliverWithPage(startupAnswers({ userId: 'someone-else' }));
    renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.routesCalled().sort()).toEqual([
      'POST tempPass/create',
      'POST user/get',
      'POST user/getPolicy',
    ]);
    expect(server.callsTo('POST user/getPolicy')[0]?.body).toMatchObject({ user: { id: TEST_USER.userId } });
  });

  it('makes all its calls when the data block cannot be read, and says so in the console', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    deliverWithPage('{"POST userinfo {}": ');
    renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(server.routesCalled()).toEqual(
      expect.arrayContaining(['POST userinfo', 'GET resourceFile/getLanguageList', 'POST user/getPolicy']),
    );
    await waitFor(() =>
      expect(logged).toHaveBeenCalledWith(
        'The startup answers delivered with the page could not be read',
        expect.anything(),
      ),
    );
    logged.mockRestore();
  });
});
