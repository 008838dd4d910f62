import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resetBrowserPasskeys, startAuthentication } from '../../console/testing/browser-passkeys';
import { envelopeError, installFakeServer, ok } from '../../testing/fake-server';
import { text } from '../../testing/test-messages';
import { renderInPage } from './render-passkeys';
import { SignInWithPasskey } from './sign-in-with-passkey';

vi.mock('@simplewebauthn/browser', () => import('../../console/testing/browser-passkeys'));

const OPTIONS = { challenge: 'c2hhbGxlbmdl', allowCredentials: [{ id: 'cred', type: 'public-key' }] };

describe('SignInWithPasskey', () => {
  beforeEach(resetBrowserPasskeys);

  it("answers the server's options with the browser's passkey, then tells the page it is open", async () => {
    const server = installFakeServer()
      .answer('POST registration/passkey/options', ok(OPTIONS))
      .answer('POST registration/passkey/open', ok({ expiresAt: '2026-11-26T21:00:00.000Z' }));
    const onOpened = vi.fn();
    renderInPage(<SignInWithPasskey onOpened={onOpened} />);
    await userEvent.click(screen.getByRole('button', { name: text('en', 'channels.passkeys.signIn') }));
    await waitFor(() => expect(onOpened).toHaveBeenCalledTimes(1));
    expect(startAuthentication).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(server.callsTo('POST registration/passkey/open')[0]?.body).toEqual({
      credential: { id: 'cred', rawId: 'cred', type: 'public-key', response: {} },
    });
  });

  it("shows the server's refusal and opens nothing", async () => {
    installFakeServer()
      .answer('POST registration/passkey/options', ok(OPTIONS))
      .answer(
        'POST registration/passkey/open',
        envelopeError(3, 'Registering channels needs a strong sign-in.'),
      );
    const onOpened = vi.fn();
    renderInPage(<SignInWithPasskey onOpened={onOpened} />);
    await userEvent.click(screen.getByRole('button', { name: text('en', 'channels.passkeys.signIn') }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Registering channels needs a strong sign-in.',
    );
    expect(onOpened).not.toHaveBeenCalled();
  });

  it("says so in the page's language when the browser's dialog was cancelled", async () => {
    const server = installFakeServer().answer('POST registration/passkey/options', ok(OPTIONS));
    startAuthentication.mockRejectedValueOnce(
      Object.assign(new Error('cancelled'), { name: 'NotAllowedError' }),
    );
    const onOpened = vi.fn();
    renderInPage(<SignInWithPasskey onOpened={onOpened} />, 'de');
    await userEvent.click(screen.getByRole('button', { name: text('de', 'channels.passkeys.signIn') }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      text('de', 'channels.passkeys.browserRefused'),
    );
    expect(server.callsTo('POST registration/passkey/open')).toEqual([]);
    expect(onOpened).not.toHaveBeenCalled();
  });
});
