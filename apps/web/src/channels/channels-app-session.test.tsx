import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { envelopeError, installFakeServer, ok, type FakeServer } from '../testing/fake-server';
import { text } from '../testing/test-messages';
import { CLOSED, LIST, OPEN, renderChannels } from './channels-app-fixture';

vi.mock('@simplewebauthn/browser', () => import('../console/testing/browser-passkeys'));

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
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

  it('sends a test to a channel and says where it went', async () => {
    server.answer('POST channels/test', ok({ to: 'd***@e***.com' }));
    const { user } = renderChannels();
    const mail = await screen.findByTestId('channel-email');
    await user.click(within(mail).getByRole('button', { name: text('en', 'channels.sendTest') }));
    expect(await screen.findByTestId('channels-done')).toHaveTextContent(
      text('en', 'channels.testSent', { recipient: 'd***@e***.com' }),
    );
    expect(server.callsTo('POST channels/test')[0]?.body).toEqual({ key: 'email', locale: 'en' });
  });

  it("says why a test was refused, in the server's words", async () => {
    server.answer('POST channels/test', envelopeError(140, 'Too many requests'));
    const { user } = renderChannels();
    const mail = await screen.findByTestId('channel-email');
    await user.click(within(mail).getByRole('button', { name: text('en', 'channels.sendTest') }));
    expect(await screen.findByTestId('channels-problem')).toHaveTextContent('Too many requests');
  });

  it('removes a channel the person registered, and says so', async () => {
    server.answer('POST channels/remove', ok({ done: true }));
    const { user } = renderChannels();
    const phone = await screen.findByTestId('channel-personalMobile');
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
