import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { envelopeError, httpStatus, installFakeServer, ok, type FakeServer } from '../testing/fake-server';
import { navigations } from '../testing/render-page';
import { text } from '../testing/test-messages';
import { CLOSED, LIST, OPEN, renderChannels } from './channels-app-fixture';

vi.mock('@simplewebauthn/browser', () => import('../console/testing/browser-passkeys'));

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

describe('the channels page without a registration session', () => {
  it('says why a password is not enough and offers a code to a proven channel and the help desk link, never the channels', async () => {
    server.answer('POST registration/ways', ok(CLOSED));
    renderChannels();
    expect(
      await screen.findByRole('heading', { level: 1, name: text('en', 'channels.signIn.heading') }),
    ).toBeVisible();
    expect(screen.getByTestId('password-not-enough')).toHaveTextContent(text('en', 'channels.signIn.why'));
    expect(screen.getAllByRole('radio')).toHaveLength(2);
    expect(screen.getByRole('heading', { name: text('en', 'channels.signIn.byLink') })).toBeVisible();
    // No identity provider configured: no such way.
    expect(screen.queryByTestId('way-provider')).toBeNull();
    expect(server.callsTo('POST channels/list')).toHaveLength(0);
  });

  it('sends a code to the chosen channel and opens the channels with it', async () => {
    let open = false;
    server.on('POST registration/ways', () => ok(open ? OPEN : CLOSED));
    server.answer(
      'POST registration/challenge',
      ok({ challengeId: 'c1', to: '+49 *** ***12', expiresAt: '2026-11-26T21:00:00.000Z' }),
    );
    server.on('POST registration/open', (call) => {
      const body = call.body as { code: string };
      if (body.code !== '12345678') return envelopeError(3, 'wrong code');
      open = true;
      return ok({ expiresAt: OPEN.expiresAt });
    });
    server.answer('POST channels/list', ok(LIST));
    const { user } = renderChannels();
    await user.click(await screen.findByRole('radio', { name: /\+49/ }));
    await user.click(screen.getByRole('button', { name: text('en', 'channels.signIn.sendCode') }));
    expect(server.callsTo('POST registration/challenge')[0]?.body).toEqual({
      reference: 'ref-phone',
      locale: 'en',
    });
    expect(await screen.findByTestId('challenge-sent')).toHaveTextContent('+49 *** ***12');
    const code = screen.getByLabelText(text('en', 'channels.code'));
    await waitFor(() => expect(document.activeElement).toBe(code));
    await user.type(code, '000');
    await user.click(screen.getByRole('button', { name: text('en', 'channels.confirm') }));
    expect(await screen.findByTestId('sign-in-problem')).toHaveTextContent('wrong code');
    await user.type(code, '12345678');
    await user.keyboard('{Enter}');
    expect(
      await screen.findByRole('heading', { level: 1, name: text('en', 'channels.title') }),
    ).toBeVisible();
  });

  it('is used by keyboard alone: a channel chosen with the arrows, the code sent and typed', async () => {
    server.answer('POST registration/ways', ok(CLOSED));
    server.answer(
      'POST registration/challenge',
      ok({ challengeId: 'c1', to: '+49 *** ***12', expiresAt: '2026-11-26T21:00:00.000Z' }),
    );
    const { user } = renderChannels();
    const first = await screen.findByRole('radio', { name: /d\*\*\*@/ });
    first.focus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('radio', { name: /\+49/ })).toBeChecked();
    await user.tab();
    expect(document.activeElement).toBe(
      screen.getByRole('button', { name: text('en', 'channels.signIn.sendCode') }),
    );
    await user.keyboard('{Enter}');
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByLabelText(text('en', 'channels.code'))),
    );
    expect(server.callsTo('POST registration/challenge')[0]?.body).toMatchObject({ reference: 'ref-phone' });
  });

  it('offers the identity provider when the server has one, and says when it refused', async () => {
    server.answer('POST registration/ways', ok({ ...CLOSED, oidc: true }));
    renderChannels('#signin=refused');
    const link = await screen.findByRole('link', { name: text('en', 'channels.signIn.provider') });
    expect(link.getAttribute('href')).toBe('/dea/api/registration/oidc/start');
    expect(screen.getByTestId('provider-refused')).toHaveTextContent(
      text('en', 'channels.signIn.providerRefused'),
    );
  });

  it('opens a registration link of the help desk once, and takes it out of the address', async () => {
    let open = false;
    server.on('POST registration/ways', () => ok(open ? OPEN : CLOSED));
    server.on('POST registration/open', () => {
      open = true;
      return ok({ expiresAt: OPEN.expiresAt });
    });
    server.answer('POST channels/list', ok(LIST));
    renderChannels('#link=abcdefghijklmnopqrstuvwxyz');
    expect(
      await screen.findByRole('heading', { level: 1, name: text('en', 'channels.title') }),
    ).toBeVisible();
    expect(server.callsTo('POST registration/open').map((call) => call.body)).toEqual([
      { link: 'abcdefghijklmnopqrstuvwxyz' },
    ]);
    expect(window.location.hash).toBe('');
  });

  it('sends a person without a password session to the login application, the link kept in the return address', async () => {
    server.answer('POST userinfo', httpStatus(403));
    renderChannels('#link=abcdefghijklmnopqrstuvwxyz');
    await waitFor(() => expect(navigations()).toHaveLength(1));
    const target = new URL(navigations()[0] ?? '');
    expect(target.pathname).toBe('/login/');
    expect(target.searchParams.get('ep')).toBe(
      'http://localhost:3000/dea/channels/#link=abcdefghijklmnopqrstuvwxyz'.replace(
        'http://localhost:3000',
        window.location.origin,
      ),
    );
  });
});

describe('the channels page when something is missing or refused', () => {
  it('says when none of the channels may receive the code, and why a link was refused', async () => {
    server.answer('POST registration/ways', ok({ ...CLOSED, channels: [] }));
    server.answer('POST registration/open', envelopeError(3, 'This link cannot be used'));
    renderChannels('#link=linklinklinklinklink');
    expect(await screen.findByText(text('en', 'channels.signIn.noChannel'))).toBeVisible();
    expect(await screen.findByRole('alert')).toHaveTextContent('This link cannot be used');
    expect(screen.queryByRole('button', { name: text('en', 'channels.signIn.sendCode') })).toBeNull();
  });

  it('says what went wrong when the server cannot tell the ways to sign in', async () => {
    server.answer('POST registration/ways', envelopeError(1, 'The service is not available'));
    renderChannels();
    expect(await screen.findByRole('alert')).toHaveTextContent('The service is not available');
    expect(screen.queryByTestId('way-code')).toBeNull();
  });

  it('says what went wrong when the list cannot be read, without offering changes', async () => {
    server.answer('POST registration/ways', ok(OPEN));
    server.answer('POST channels/list', envelopeError(1, 'The service is not available'));
    renderChannels();
    expect(await screen.findByTestId('channels-problem')).toHaveTextContent('The service is not available');
    expect(screen.queryByTestId('remembered-devices')).toBeNull();
  });

  it('names the directory, SCIM and import sources, an address waiting for its code, and says when there is no room', async () => {
    server.answer('POST registration/ways', ok(OPEN));
    server.answer(
      'POST channels/list',
      ok({
        channels: [
          { ...LIST.channels[0]!, key: 'mobile', type: 'sms', source: 'scim' },
          { ...LIST.channels[0]!, key: 'telephone', type: 'voice', source: 'import' },
          { ...LIST.channels[1]! },
          {
            state: 'pending',
            key: 'personalEmail',
            type: 'smtp',
            to: 'h***@e***.org',
            proofId: 'proof-1',
            until: '2026-11-26T21:30:00.000Z',
            triesLeft: 5,
          },
        ],
        policy: { types: ['sms', 'smtp'], max: 1, coolingHours: 24 },
      }),
    );
    renderChannels();
    expect(await screen.findByTestId('channel-mobile')).toHaveTextContent(text('en', 'channels.source.scim'));
    expect(screen.getByTestId('channel-telephone')).toHaveTextContent(text('en', 'channels.source.import'));
    expect(screen.getByTestId('channel-personalEmail')).toHaveTextContent(
      /en:channels\.state\.pending \S.*2026/,
    );
    expect(screen.getByText(text('en', 'channels.add.full'))).toBeVisible();
    expect(screen.queryByLabelText(text('en', 'channels.add.address'))).toBeNull();
  });

  it('says when the person has no channel at all', async () => {
    server.answer('POST registration/ways', ok(OPEN));
    server.answer('POST channels/list', ok({ ...LIST, channels: [] }));
    renderChannels();
    expect(await screen.findByText(text('en', 'channels.list.none'))).toBeVisible();
  });
});
