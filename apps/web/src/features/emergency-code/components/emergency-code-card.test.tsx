import { browserLocation } from '../../../shared/browser-location';
import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  envelopeError,
  httpStatus,
  installFakeServer,
  ok,
  DISPLAY_POLICY,
  type FakeServer,
} from '../../../testing/fake-server';
import { renderPage } from '../../../testing/render-page';
import { text } from '../../../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

/** A recipient entry as the menu names it: work or personal, then the masked recipient. */
const work = (masked: string) => `${text('en', 'content.recipientWork')} ${masked}`;
const personal = (masked: string) => `${text('en', 'content.recipientPersonal')} ${masked}`;

const CHANNELS = {
  mobile: '+49 *** ***12,ref-1',
  personalMobile: '+49 *** ***34,ref-2',
  email: 'c***@example.com,ref-3',
  telephone: '+49 30 ***56,ref-5',
  personalTwitter: '@ch***,ref-8',
};

describe('code on screen (delivery mode other than Channel)', () => {
  it('shows the code in the highlighted box with its hint and both buttons', async () => {
    renderPage();
    const code = await screen.findByTestId('emergency-code');
    expect(code).toHaveTextContent('CODE1ABCDE');
    expect(screen.getByText(text('en', 'content.yourCode'))).toBeVisible();
    expect(screen.getByRole('heading', { level: 1, name: text('en', 'content.title') })).toBeVisible();
    expect(screen.getByRole('button', { name: text('en', 'content.copyCode') })).toBeVisible();
    expect(screen.getByRole('button', { name: text('en', 'content.requestCode') })).toBeVisible();
  });

  it('says how many times the code works when the policy allows more than one use', async () => {
    server.policy({ codeUses: 3 });
    renderPage();
    await screen.findByTestId('emergency-code');
    expect(screen.getByText(text('en', 'content.yourCodeUses', { count: 3 }))).toBeVisible();
    expect(screen.queryByText(text('en', 'content.yourCode'))).toBeNull();
  });

  it('keeps the code and its id in session storage', async () => {
    renderPage();
    await screen.findByTestId('emergency-code');
    expect(window.sessionStorage.getItem('emergencyCode')).toBe('CODE1ABCDE');
    expect(window.sessionStorage.getItem('emergencyCodeId')).toBe('code-1');
  });

  it('reuses a code kept in session storage without asking the server', async () => {
    window.sessionStorage.setItem('emergencyCode', 'KEPTCODE99');
    window.sessionStorage.setItem('emergencyCodeId', 'code-kept');
    renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('KEPTCODE99');
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
  });

  it('sends the locale of the chosen language with the request', async () => {
    window.localStorage.setItem('lang', 'pt_BR');
    renderPage();
    await screen.findByTestId('emergency-code');
    expect(server.callsTo('POST tempPass/create')[0]?.body).toMatchObject({ attrs: { locale: 'pt_BR' } });
  });

  it('replaces the kept code with a new one on request', async () => {
    window.sessionStorage.setItem('emergencyCode', 'KEPTCODE99');
    const { user } = renderPage();
    await screen.findByText('KEPTCODE99');
    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    expect(window.sessionStorage.getItem('emergencyCode')).toBe('CODE1ABCDE');
    expect(server.callsTo('POST tempPass/create')).toHaveLength(1);
  });

  it('shows the server message and sets the store-full flag on error 148', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    server.answer('POST tempPass/create', envelopeError(148, 'Too many unused codes'));
    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    expect(await screen.findByTestId('page-error')).toHaveTextContent('Too many unused codes');
    expect(screen.getByTestId('code-panel').dataset.storeFull).toBe('true');
    expect(screen.queryByTestId('emergency-code')).toBeNull();
    // Never a dead end: the button stays, and once a slot is free it brings a code.
    server.answer('POST tempPass/create', ok({ rows: [{ id: 'code-9', password: 'CODE9ABCDE' }] }));
    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE9ABCDE');
  });

  it('after 148 says from when a new code can be asked for, when the server says so', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    const nextFreeAt = '2026-11-24T10:12:00.000Z';
    server.answer('POST tempPass/create', {
      body: { error: 148, message: 'You hold 5 unused codes', result: { unusedCodes: 5, nextFreeAt } },
    });
    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    expect(await screen.findByTestId('page-error')).toHaveTextContent('You hold 5 unused codes');
    const time = new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(new Date(nextFreeAt));
    expect(screen.getByTestId('next-code-at')).toHaveTextContent(text('en', 'content.nextCodeAt', { time }));
    // No code on screen, so nothing tells to copy one: asking again is the first button.
    expect(screen.queryByRole('button', { name: text('en', 'content.copyCode') })).toBeNull();
    expect(screen.getByRole('button', { name: text('en', 'content.requestCode') })).toHaveClass(
      'btn-primary',
    );
  });

  it('says until when the code works and how long is left, then marks it expired and offers a new one', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['Date', 'setInterval', 'clearInterval'] });
    try {
      vi.setSystemTime(new Date('2026-11-24T10:00:00Z'));
      renderPage();
      await screen.findByTestId('emergency-code');
      const validity = screen.getByTestId('code-validity');
      const until = new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(
        new Date('2026-11-24T10:15:00Z'),
      );
      expect(validity).toHaveTextContent(
        text('en', 'content.validUntil', { time: until, remaining: '15 minutes' }),
      );
      await act(() => vi.advanceTimersByTime(14 * 60_000 + 30_000));
      expect(screen.getByTestId('code-validity')).toHaveTextContent('30 seconds');
      await act(() => vi.advanceTimersByTime(31_000));
      expect(screen.getByTestId('code-expired')).toHaveTextContent(text('en', 'content.codeExpired'));
      expect(screen.getByTestId('emergency-code')).toHaveClass('code-expired');
      // Spec section 2's on-screen state always has both buttons, also once the code expired:
      // asking for a new one first, and copying says it expired.
      const buttons = within(screen.getByTestId('code-panel')).getAllByRole('button');
      expect(buttons.map((button) => button.textContent)).toEqual([
        text('en', 'content.requestCode'),
        text('en', 'content.copyCode'),
      ]);
      expect(buttons[0]).toHaveClass('btn-primary');
      const writeText = vi.spyOn(navigator.clipboard, 'writeText');
      await act(async () => buttons[1]?.click());
      expect(screen.getByTestId('copy-outcome')).toHaveTextContent(text('en', 'content.copyExpired'));
      expect(writeText).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the focus on the button while the new code comes, and announces the new code', async () => {
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    const held = server.hold('POST tempPass/create');
    const button = screen.getByRole('button', { name: text('en', 'content.requestCode') });
    await user.click(button);
    expect(button).toHaveFocus();
    expect(button).toHaveAttribute('aria-disabled', 'true');
    await user.click(button);
    held.release(ok({ rows: [{ id: 'code-7', password: 'CODE7ABCDE' }] }));
    await waitFor(() => expect(screen.getByTestId('emergency-code')).toHaveTextContent('CODE7ABCDE'));
    expect(screen.getByTestId('emergency-code').closest('[role="status"]')).toHaveAttribute(
      'aria-live',
      'polite',
    );
    expect(button).toHaveFocus();
    expect(server.callsTo('POST tempPass/create')).toHaveLength(2);
  });

  it('takes back the code on screen by its id before asking for the one that replaces it', async () => {
    const { user } = renderPage();
    expect(await screen.findByTestId('emergency-code')).toHaveTextContent('CODE1ABCDE');
    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    expect(await screen.findByText('CODE2ABCDE')).toBeInTheDocument();
    const calls = server.calls.filter((call) => call.route.startsWith('tempPass/'));
    expect(calls.map((call) => call.route)).toEqual([
      'tempPass/create',
      'tempPass/revoke',
      'tempPass/create',
    ]);
    expect(calls[1]?.body).toEqual({ user: { id: 'user-1' }, emergencyCodeId: 'code-1' });
  });

  it('shows another envelope error without the flag', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST tempPass/create', envelopeError(140, 'Slow down'));
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent('Slow down');
    expect(screen.getByTestId('code-panel').dataset.storeFull).toBeUndefined();
    expect(screen.getByRole('button', { name: text('en', 'content.requestCode') })).toBeVisible();
  });

  it('copies the code and says so visibly and to screen readers', async () => {
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    await user.click(screen.getByRole('button', { name: text('en', 'content.copyCode') }));
    await expect(navigator.clipboard.readText()).resolves.toBe('CODE1ABCDE');
    const outcome = screen.getByTestId('copy-outcome');
    expect(outcome).toHaveTextContent(text('en', 'content.codeCopied'));
    expect(outcome.getAttribute('role')).toBe('status');
    expect(outcome.getAttribute('aria-live')).toBe('polite');
  });

  it('tells the user to copy by hand when the clipboard refuses', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    await user.click(screen.getByRole('button', { name: text('en', 'content.copyCode') }));
    expect(await screen.findByTestId('copy-outcome')).toHaveTextContent(text('en', 'content.copyFailed'));
  });
});

describe('codes on screen without a reason to trust', () => {
  const untrusted = () =>
    server.answer(
      'POST user/getPolicy',
      ok({ options: { ...DISPLAY_POLICY, emergencyCodeDelivery: 'Channel' }, screenCodeTrust: 'missing' }),
    );

  it('offers the channels, saying why no code is on screen, and asks for none', async () => {
    untrusted().answer('POST user/queryAvailableChannels', ok(CHANNELS));
    renderPage();
    expect(await screen.findByTestId('screen-code-untrusted')).toHaveTextContent(
      text('en', 'content.screenCodeUntrusted'),
    );
    expect(screen.getByTestId('channel-sms')).toBeVisible();
    expect(screen.queryByTestId('emergency-code')).toBeNull();
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
  });

  it('says to call the help desk when no channel may receive a code', async () => {
    untrusted().answer('POST user/queryAvailableChannels', ok({}));
    renderPage();
    expect(await screen.findByTestId('call-help-desk')).toHaveTextContent(text('en', 'content.callHelpDesk'));
    expect(screen.queryByTestId('no-channel')).toBeNull();
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
  });

  it('keeps the spec’s texts when codes go by channel anyway', async () => {
    server.channels({});
    renderPage();
    expect(await screen.findByTestId('no-channel')).toBeVisible();
    expect(screen.queryByTestId('call-help-desk')).toBeNull();
    expect(screen.queryByTestId('screen-code-untrusted')).toBeNull();
  });
});

describe('policy', () => {
  it('shows the not-authorized alert and asks for no code when codes are disabled', async () => {
    server.policy({ enableECode: false });
    renderPage();
    expect(await screen.findByTestId('not-authorized')).toHaveTextContent(
      text('en', 'content.notAuthorized'),
    );
    // Not the spec's title section (codes are not enabled), but a heading of its own.
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      text('en', 'content.notAuthorizedTitle'),
    );
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
    expect(server.callsTo('POST user/queryAvailableChannels')).toHaveLength(0);
  });

  it('gives the failure screen a heading and the message when the policy cannot be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST user/getPolicy', httpStatus(500));
    const { user } = renderPage();
    expect(
      await screen.findByRole('heading', { level: 1, name: text('en', 'content.unavailableTitle') }),
    ).toBeVisible();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(text('en', 'error.generic'));
    // Not a dead end: trying again loads the page anew; the menu beside it logs out.
    await user.click(screen.getByRole('button', { name: text('en', 'content.tryAgain') }));
    expect(vi.mocked(browserLocation.reload)).toHaveBeenCalledTimes(1);
  });

  it('does not show a kept code when codes are disabled', async () => {
    window.sessionStorage.setItem('emergencyCode', 'KEPTCODE99');
    server.policy({ enableECode: false });
    renderPage();
    await screen.findByTestId('not-authorized');
    expect(screen.queryByText('KEPTCODE99')).toBeNull();
  });
});

describe('delivery by channel', () => {
  it('offers one dropdown per channel type, listing masked recipients', async () => {
    server.channels(CHANNELS);
    const { user } = renderPage();
    await screen.findByText(text('en', 'content.chooseRecipient'));
    const buttons = screen.getAllByRole('button', { name: /content\.channel\./ });
    expect(buttons.map((button) => button.textContent)).toEqual([
      text('en', 'content.channel.sms'),
      text('en', 'content.channel.email'),
      text('en', 'content.channel.telephone'),
      text('en', 'content.channel.twitter'),
    ]);
    await user.click(screen.getByRole('button', { name: text('en', 'content.channel.sms') }));
    const items = within(screen.getByRole('menu')).getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual([work('+49 *** ***12'), personal('+49 *** ***34')]);
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
  });

  it('sends to the chosen recipient, shows progress, then the success modal', async () => {
    server.channels(CHANNELS);
    const sent = server.hold('POST tempPass/createAndSend');
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: text('en', 'content.channel.email') }));
    await user.click(screen.getByRole('menuitem', { name: work('c***@example.com') }));
    expect(screen.getByRole('progressbar', { name: text('en', 'content.sending') })).toBeVisible();
    expect(server.callsTo('POST tempPass/createAndSend')[0]?.body).toEqual({
      user: { id: 'user-1' },
      options: { channel: 'smtp', recipient: 'ref-3' },
      locale: 'en',
    });
    sent.release(ok({ to: 'c***@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: text('en', 'message') });
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(dialog.className).toContain('modal-md');
    const success = within(dialog).getByTestId('send-success');
    expect(success).toHaveTextContent(text('en', 'successMessage', { recipient: 'c***@example.com' }));
    expect(success.className).toContain('text-success');
    await user.click(within(dialog).getByRole('button', { name: text('en', 'ok') }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    // One line stays: where the code went and until when it works (the policy's 15 minutes).
    const line = screen.getByTestId('sent-line');
    expect(line.textContent).toMatch(new RegExp(`^en:content\\.sentUntil c\\*\\*\\*@example\\.com \\S+`));
  });

  it.each([
    ['telephone', work('+49 30 ***56'), 'TELEPHONE', 'ref-5'],
    ['twitter', personal('@ch***'), 'TWITTER', 'ref-8'],
    ['sms', personal('+49 *** ***34'), 'sms', 'ref-2'],
  ] as const)('sends a %s channel as %s', async (group, masked, channel, recipient) => {
    server.channels(CHANNELS);
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: text('en', `content.channel.${group}`) }));
    await user.click(screen.getByRole('menuitem', { name: masked }));
    await screen.findByRole('dialog');
    expect(server.callsTo('POST tempPass/createAndSend')[0]?.body).toMatchObject({
      options: { channel, recipient },
    });
  });

  it('keeps every channel menu disabled while a send is on its way, so no second code goes out', async () => {
    server.channels(CHANNELS);
    const sent = server.hold('POST tempPass/createAndSend');
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: text('en', 'content.channel.sms') }));
    await user.click(screen.getByRole('menuitem', { name: work('+49 *** ***12') }));
    for (const group of ['sms', 'email', 'telephone', 'twitter'] as const)
      expect(screen.getByRole('button', { name: text('en', `content.channel.${group}`) })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: text('en', 'content.channel.email') }));
    expect(screen.queryByRole('menu')).toBeNull();
    sent.release(ok({ to: '+49 *** ***12' }));
    await screen.findByRole('dialog');
    expect(server.callsTo('POST tempPass/createAndSend')).toHaveLength(1);
    expect(screen.getByRole('button', { name: text('en', 'content.channel.email') })).toBeEnabled();
  });

  it("shows the server's message in a red alert when the send fails", async () => {
    server.channels(CHANNELS).answer('POST tempPass/createAndSend', envelopeError(150, 'Could not deliver'));
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: text('en', 'content.channel.sms') }));
    await user.click(screen.getByRole('menuitem', { name: work('+49 *** ***12') }));
    const dialog = await screen.findByRole('dialog', { name: text('en', 'message') });
    const alert = within(dialog).getByTestId('send-error');
    expect(alert).toHaveTextContent('Could not deliver');
    expect(alert.className).toContain('alert-danger');
    expect(within(dialog).queryByTestId('send-success')).toBeNull();
  });

  it('only logs a send that fails over HTTP', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.channels(CHANNELS).answer('POST tempPass/createAndSend', httpStatus(500));
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: text('en', 'content.channel.sms') }));
    await user.click(screen.getByRole('menuitem', { name: work('+49 *** ***12') }));
    await waitFor(() =>
      expect(logged).toHaveBeenCalledWith('The emergency code could not be sent', expect.anything()),
    );
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByTestId('page-error')).toBeNull();
  });

  it('clears an earlier error when a send starts', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.channels(CHANNELS).answer('POST user/get', envelopeError(3, 'Locale refused'));
    const { user } = renderPage();
    await screen.findByTestId('page-error');
    await user.click(await screen.findByRole('button', { name: text('en', 'content.channel.sms') }));
    await user.click(screen.getByRole('menuitem', { name: work('+49 *** ***12') }));
    await screen.findByRole('dialog');
    expect(screen.queryByTestId('page-error')).toBeNull();
  });

  it('shows the no-channel alert when the user has no channel', async () => {
    server.channels({});
    renderPage();
    expect(await screen.findByTestId('no-channel')).toHaveTextContent(text('en', 'content.noChannel'));
    expect(screen.queryByRole('button', { name: /content\.channel\./ })).toBeNull();
  });

  it("shows the server's message when the channels cannot be read", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.channels({}).answer('POST user/queryAvailableChannels', envelopeError(3, 'Channels refused'));
    renderPage();
    expect(await screen.findByTestId('page-error')).toHaveTextContent('Channels refused');
    expect(screen.queryByTestId('no-channel')).toBeNull();
  });
});
