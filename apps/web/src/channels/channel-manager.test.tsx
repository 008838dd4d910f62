import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { envelopeError, installFakeServer, ok, type FakeServer } from '../testing/fake-server';
import { text } from '../testing/test-messages';
import { LIST } from './channels-app-fixture';
import { ChannelManager } from './channel-manager';
import { renderInPage } from './passkeys/render-passkeys';

vi.mock('@simplewebauthn/browser', () => import('../console/testing/browser-passkeys'));

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer()
    .answer('POST channels/list', ok(LIST))
    .answer('POST passkeys/list', ok({ passkeys: [] }));
});

function renderManager(onSessionEnded = () => undefined) {
  const user = userEvent.setup();
  return { ...renderInPage(<ChannelManager locale="en" onSessionEnded={onSessionEnded} />), user };
}

const progress = () => screen.queryByRole('progressbar');

describe('the channel manager', () => {
  it('loads the list once when it opens', async () => {
    renderManager();
    await screen.findByTestId('channel-email');
    expect(server.routesCalled().filter((route) => route.startsWith('POST channels/'))).toEqual([
      'POST channels/list',
    ]);
  });

  it('says why the list could not be loaded in place of it', async () => {
    server.answer('POST channels/list', envelopeError(1, 'The directory is down'));
    renderManager();
    expect(await screen.findByTestId('channels-problem')).toHaveTextContent('The directory is down');
    expect(screen.queryByTestId('channel-list')).toBeNull();
  });

  it('stays busy after a change until the list is loaded again, and says the outcome with it', async () => {
    server.answer('POST channels/remove', ok({ done: true }));
    const { user } = renderManager();
    const phone = await screen.findByTestId('channel-personalMobile');
    server.answer('POST channels/list', ok({ ...LIST, channels: LIST.channels.slice(0, 1) }));
    const held = server.hold('POST channels/list');
    await user.click(within(phone).getByRole('button', { name: text('en', 'channels.remove') }));
    await waitFor(() => expect(server.callsTo('POST channels/list')).toHaveLength(2));
    expect(progress()).toBeInTheDocument();
    expect(screen.getByTestId('channel-personalMobile')).toBeInTheDocument();
    expect(screen.queryByTestId('channels-done')).toBeNull();
    held.release();
    await waitFor(() => expect(screen.queryByTestId('channel-personalMobile')).toBeNull());
    expect(progress()).toBeNull();
    expect(screen.getByTestId('channels-done')).toHaveTextContent(
      text('en', 'channels.removed', { recipient: '+49 *** ***99' }),
    );
    expect(server.routesCalled().filter((route) => route.startsWith('POST channels/'))).toEqual([
      'POST channels/list',
      'POST channels/remove',
      'POST channels/list',
    ]);
  });

  it('keeps the list it shows when loading it again after a change fails, and says why', async () => {
    server.answer('POST channels/test', ok({ to: 'd***@e***.com' }));
    const { user } = renderManager();
    const mail = await screen.findByTestId('channel-email');
    server.answer('POST channels/list', envelopeError(1, 'The directory is down'));
    await user.click(within(mail).getByRole('button', { name: text('en', 'channels.sendTest') }));
    expect(await screen.findByTestId('channels-problem')).toHaveTextContent('The directory is down');
    expect(screen.getByTestId('channel-email')).toBeInTheDocument();
    expect(progress()).toBeNull();
  });

  it('hands back to the strong sign-ins when the list finds no registration session', async () => {
    const onSessionEnded = vi.fn();
    server.answer('POST channels/list', envelopeError(3, 'Registering channels needs a strong sign-in'));
    renderManager(onSessionEnded);
    await waitFor(() => expect(onSessionEnded).toHaveBeenCalledTimes(1));
    expect(screen.queryByTestId('channels-problem')).toBeNull();
  });
});
