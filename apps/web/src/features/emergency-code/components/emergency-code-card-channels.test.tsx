import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  envelopeError,
  httpStatus,
  installFakeServer,
  ok,
  type FakeServer,
} from '../../../testing/fake-server';
import { renderPage } from '../../../testing/render-page';
import { text } from '../../../testing/test-messages';
import { CHANNELS, personal, work } from './emergency-code-card-fixture';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
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
