import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { envelopeError, installFakeServer, ok, type FakeServer } from '../../../testing/fake-server';
import { renderPage } from '../../../testing/render-page';
import { text } from '../../../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

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
  });

  it('keeps the button after error 148, and it brings a code once a slot is free', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    server.answer('POST tempPass/create', envelopeError(148, 'Too many unused codes'));
    await user.click(screen.getByRole('button', { name: text('en', 'content.requestCode') }));
    await screen.findByTestId('page-error');
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
