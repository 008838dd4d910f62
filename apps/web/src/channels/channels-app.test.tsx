import type { ChannelListResult, RegistrationWaysResult } from '@dea/contract';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { envelopeError, httpStatus, installFakeServer, ok, type FakeServer } from '../testing/fake-server';
import { navigations } from '../testing/render-page';
import { text } from '../testing/test-messages';
import { ChannelsApp } from './channels-app';

vi.mock('@simplewebauthn/browser', () => import('../console/testing/browser-passkeys'));

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

/** Renders the channels page as the browser starts it, at /dea/channels/ with a fragment. */
function renderChannels(hash = '') {
  window.history.replaceState(null, '', `/dea/channels/${hash}`);
  const container = document.createElement('div');
  container.id = 'root';
  document.body.append(container);
  const user = userEvent.setup();
  return { ...render(<ChannelsApp />, { container }), user };
}

const CLOSED: RegistrationWaysResult = {
  open: false,
  oidc: false,
  channels: [
    { reference: 'ref-mail', key: 'email', type: 'smtp', to: 'd***@e***.com' },
    { reference: 'ref-phone', key: 'mobile', type: 'sms', to: '+49 *** ***12' },
  ],
};
const OPEN: RegistrationWaysResult = {
  open: true,
  expiresAt: '2026-11-26T21:15:00.000Z',
  oidc: false,
  channels: [],
};

const LIST: ChannelListResult = {
  channels: [
    {
      state: 'registered',
      key: 'email',
      type: 'smtp',
      to: 'd***@e***.com',
      reference: 'r1',
      origin: 'source',
      source: 'ldap',
      usable: true,
    },
    {
      state: 'registered',
      key: 'personalMobile',
      type: 'sms',
      to: '+49 *** ***99',
      reference: 'r2',
      origin: 'owner',
      usable: false,
      reason: 'cooling',
      until: '2026-11-27T20:00:00.000Z',
    },
  ],
  policy: { types: ['sms', 'smtp'], max: 2, coolingHours: 24 },
};

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

describe('the channels page with a registration session', () => {
  beforeEach(() => {
    server.answer('POST registration/ways', ok(OPEN));
    server.answer('POST channels/list', ok(LIST));
  });

  it("lists each channel with its source, read-only, and its state with the cooling time's end", async () => {
    renderChannels();
    const mail = await screen.findByTestId('channel-email');
    expect(mail).toHaveTextContent(text('en', 'channels.source.ldap'));
    expect(within(mail).queryByRole('button', { name: text('en', 'channels.remove') })).toBeNull();
    expect(within(mail).getByTestId('channel-state')).toHaveTextContent(text('en', 'channels.state.proven'));
    const phone = screen.getByTestId('channel-personalMobile');
    expect(phone).toHaveTextContent(text('en', 'channels.owner'));
    expect(within(phone).getByTestId('channel-state')).toHaveTextContent(
      /en:channels\.state\.cooling \S.*2026/,
    );
    expect(within(phone).getByRole('button', { name: text('en', 'channels.remove') })).toBeVisible();
    expect(screen.getByTestId('channel-limit')).toHaveTextContent(
      text('en', 'channels.add.limit', { max: 2, count: 1 }),
    );
  });

  it('adds an address, proves it with the code sent to it (tries left after a wrong one), and sends a new code', async () => {
    const proofs: string[] = [];
    server.on('POST channels/add', (call) => {
      proofs.push((call.body as { address: string }).address);
      return ok({ proofId: `p${proofs.length}`, to: 'n***@e***.org', expiresAt: '2026-11-26T21:00:00.000Z' });
    });
    let wrong = 0;
    server.on('POST channels/prove', (call) => {
      if ((call.body as { code: string }).code === '11111111') {
        return ok({ channels: [] });
      }
      wrong += 1;
      return envelopeError(3, 'That code is wrong');
    });
    server.on('POST channels/list', () =>
      ok({
        ...LIST,
        channels: [
          ...LIST.channels,
          ...(wrong > 0
            ? [
                {
                  state: 'pending' as const,
                  key: 'personalEmail',
                  type: 'smtp',
                  to: 'n***@e***.org',
                  proofId: 'p2',
                  until: '2026-11-26T21:00:00.000Z',
                  triesLeft: 5 - wrong,
                },
              ]
            : []),
        ],
      }),
    );
    const { user } = renderChannels();
    await screen.findByTestId('add-form');
    await user.selectOptions(screen.getByLabelText(text('en', 'channels.add.kind')), 'personalEmail');
    await user.type(screen.getByLabelText(text('en', 'channels.add.address')), 'new@example.org');
    await user.click(screen.getByRole('button', { name: text('en', 'channels.add.submit') }));
    expect(server.callsTo('POST channels/add')[0]?.body).toEqual({
      key: 'personalEmail',
      address: 'new@example.org',
      locale: 'en',
    });
    expect(await screen.findByTestId('proof-sent')).toHaveTextContent('n***@e***.org');
    await user.click(screen.getByRole('button', { name: text('en', 'channels.prove.resend') }));
    await waitFor(() => expect(proofs).toEqual(['new@example.org', 'new@example.org']));
    await user.type(screen.getByLabelText(text('en', 'channels.code')), '22222222');
    await user.click(screen.getByRole('button', { name: text('en', 'channels.prove.submit') }));
    expect(await screen.findByTestId('channels-problem')).toHaveTextContent('That code is wrong');
    expect(await screen.findByTestId('proof-sent')).toHaveTextContent(
      text('en', 'channels.prove.tries', { count: 4 }),
    );
    expect(server.callsTo('POST channels/prove').at(-1)?.body).toEqual({
      proofId: 'p2',
      code: '22222222',
      locale: 'en',
    });
    await user.type(screen.getByLabelText(text('en', 'channels.code')), '11111111');
    await user.click(screen.getByRole('button', { name: text('en', 'channels.prove.submit') }));
    expect(await screen.findByTestId('channels-done')).toHaveTextContent(
      text('en', 'channels.proven', { recipient: 'n***@e***.org' }),
    );
    expect(screen.getByTestId('add-form')).toBeVisible();
  });

  it('sends a test, removes a channel it registered, and says what happened or why not', async () => {
    server.answer('POST channels/test', ok({ to: 'd***@e***.com' }));
    server.answer('POST channels/remove', ok({ done: true }));
    const { user } = renderChannels();
    const mail = await screen.findByTestId('channel-email');
    await user.click(within(mail).getByRole('button', { name: text('en', 'channels.sendTest') }));
    expect(await screen.findByTestId('channels-done')).toHaveTextContent(
      text('en', 'channels.testSent', { recipient: 'd***@e***.com' }),
    );
    expect(server.callsTo('POST channels/test')[0]?.body).toEqual({ key: 'email', locale: 'en' });
    server.answer('POST channels/test', envelopeError(140, 'Too many requests'));
    await user.click(within(mail).getByRole('button', { name: text('en', 'channels.sendTest') }));
    expect(await screen.findByTestId('channels-problem')).toHaveTextContent('Too many requests');
    const phone = screen.getByTestId('channel-personalMobile');
    await user.click(within(phone).getByRole('button', { name: text('en', 'channels.remove') }));
    expect(await screen.findByTestId('channels-done')).toHaveTextContent(
      text('en', 'channels.removed', { recipient: '+49 *** ***99' }),
    );
    expect(server.callsTo('POST channels/remove')[0]?.body).toEqual({ key: 'personalMobile' });
  });

  it('forgets the remembered browsers on request, and says so', async () => {
    server.answer('POST registration/devices/forget', ok({ forgotten: 2 }));
    const { user } = renderChannels();
    const devices = await screen.findByTestId('remembered-devices');
    expect(within(devices).getByRole('heading', { level: 2 })).toHaveTextContent(
      text('en', 'channels.devices.heading'),
    );
    await user.click(within(devices).getByRole('button', { name: text('en', 'channels.devices.forget') }));
    expect(await screen.findByTestId('channels-done')).toHaveTextContent(
      text('en', 'channels.devices.forgotten'),
    );
    expect(server.callsTo('POST registration/devices/forget')).toHaveLength(1);
  });

  it('says which channel must be proven again', async () => {
    server.answer(
      'POST channels/list',
      ok({
        ...LIST,
        channels: [
          {
            ...LIST.channels[1],
            reason: 'proof-expired',
            until: '2026-11-01T00:00:00.000Z',
          },
        ],
      }),
    );
    renderChannels();
    const phone = await screen.findByTestId('channel-personalMobile');
    expect(within(phone).getByTestId('channel-state')).toHaveTextContent(
      text('en', 'channels.state.proofExpired'),
    );
  });

  it('offers the strong sign-ins again once the registration session has ended', async () => {
    const { user } = renderChannels();
    const mail = await screen.findByTestId('channel-email');
    server.answer('POST registration/ways', ok(CLOSED));
    server.answer('POST channels/list', envelopeError(3, 'Registering channels needs a strong sign-in'));
    server.answer('POST channels/test', envelopeError(3, 'Registering channels needs a strong sign-in'));
    await user.click(within(mail).getByRole('button', { name: text('en', 'channels.sendTest') }));
    expect(
      await screen.findByRole('heading', { level: 1, name: text('en', 'channels.signIn.heading') }),
    ).toBeVisible();
  });

  it('says so when the group lets its members register nothing', async () => {
    server.answer('POST channels/list', ok({ ...LIST, policy: { types: [], max: 0, coolingHours: 24 } }));
    renderChannels();
    expect(await screen.findByText(text('en', 'channels.add.notAllowed'))).toBeVisible();
    expect(screen.queryByLabelText(text('en', 'channels.add.address'))).toBeNull();
  });
});

describe('the "this was not me" landing (#undo=)', () => {
  it('asks first, needs no session, then undoes and says the help desk was alerted', async () => {
    server.answer('POST userinfo', httpStatus(403));
    server.answer('POST channels/undo', ok({ done: true, passwordChange: 'help-desk' }));
    const { user } = renderChannels('#undo=tokentokentokentoken');
    await screen.findByRole('heading', { level: 1, name: text('en', 'channels.undo.heading') });
    expect(window.location.hash).toBe('');
    expect(server.callsTo('POST channels/undo')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: text('en', 'channels.undo.submit') }));
    expect(await screen.findByTestId('undo-done')).toHaveTextContent(text('en', 'channels.undo.done'));
    expect(screen.getByTestId('undo-password')).toHaveTextContent(
      text('en', 'channels.undo.passwordHelpDesk'),
    );
    expect(server.callsTo('POST channels/undo')[0]?.body).toEqual({ token: 'tokentokentokentoken' });
    expect(server.callsTo('POST userinfo')).toHaveLength(0);
    expect(navigations()).toEqual([]);
  });

  it("says that someone else knows the password, and how to change it the organisation's way", async () => {
    server.answer('POST userinfo', httpStatus(403));
    server.answer('POST channels/undo', ok({ done: true, passwordChange: 'organisation' }));
    const { user } = renderChannels('#undo=tokentokentokentoken');
    await user.click(await screen.findByRole('button', { name: text('en', 'channels.undo.submit') }));
    expect(await screen.findByTestId('undo-password')).toHaveTextContent(
      text('en', 'channels.undo.passwordOrganisation'),
    );
  });

  it("shows the server's refusal of a used link", async () => {
    server.answer('POST channels/undo', envelopeError(3, 'This link cannot be used'));
    const { user } = renderChannels('#undo=tokentokentokentoken');
    await user.click(await screen.findByRole('button', { name: text('en', 'channels.undo.submit') }));
    expect(await screen.findByTestId('undo-refused')).toHaveTextContent('This link cannot be used');
  });

  it('is written right to left in Arabic', async () => {
    window.localStorage.setItem('lang', 'ar');
    renderChannels('#undo=tokentokentokentoken');
    await screen.findByRole('heading', { level: 1, name: text('ar', 'channels.undo.heading') });
    expect(document.documentElement.dir).toBe('rtl');
  });
});
