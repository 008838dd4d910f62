import type { UserPasskey } from '@dea/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resetBrowserPasskeys, startRegistration } from '../../console/testing/browser-passkeys';
import { envelopeError, installFakeServer, ok, type FakeServer } from '../../testing/fake-server';
import { PasskeyList } from './passkey-list';
import { text } from '../../testing/test-messages';
import { renderInPage } from './render-passkeys';

vi.mock('@simplewebauthn/browser', () => import('../../console/testing/browser-passkeys'));

const LAPTOP: UserPasskey = {
  id: 'cred-1',
  name: 'work laptop',
  createdAt: '2026-11-01T09:00:00.000Z',
  lastUsedAt: null,
};
const PHONE: UserPasskey = {
  id: 'cred-2',
  name: 'phone',
  createdAt: '2026-11-02T09:00:00.000Z',
  lastUsedAt: '2026-11-20T09:00:00.000Z',
};

/** A server that keeps the person's passkeys and changes them as asked. */
function serverWith(passkeys: UserPasskey[]): FakeServer {
  const kept = [...passkeys];
  return installFakeServer()
    .on('POST passkeys/list', () => ok({ passkeys: kept }))
    .answer('POST passkeys/options', ok({ challenge: 'bmV3', rp: { id: 'localhost' } }))
    .on('POST passkeys/add', (call) => {
      const { name } = call.body as { name: string };
      const passkey = {
        id: `cred-${kept.length + 1}`,
        name,
        createdAt: '2026-11-26T20:00:00.000Z',
        lastUsedAt: null,
      };
      kept.push(passkey);
      return ok({ passkey });
    })
    .on('POST passkeys/rename', (call) => {
      const { id, name } = call.body as { id: string; name: string };
      const found = kept.find((passkey) => passkey.id === id);
      if (found === undefined) return envelopeError(2, 'Not found.');
      found.name = name;
      return ok({ done: true });
    })
    .on('POST passkeys/remove', (call) => {
      const { id } = call.body as { id: string };
      kept.splice(
        kept.findIndex((passkey) => passkey.id === id),
        1,
      );
      return ok({ done: true });
    });
}

const shownNames = () =>
  screen.queryAllByTestId('passkey').map((item) => within(item).getByRole('strong').textContent);

describe('PasskeyList', () => {
  beforeEach(() => {
    resetBrowserPasskeys();
    startRegistration.mockResolvedValue({ id: 'new', rawId: 'new', type: 'public-key', response: {} });
  });

  it('lists the passkeys with when each was added and last used', async () => {
    serverWith([LAPTOP, PHONE]);
    renderInPage(<PasskeyList />);
    await waitFor(() => expect(shownNames()).toEqual(['work laptop', 'phone']));
    const [laptop, phone] = screen.getAllByTestId('passkey');
    expect(laptop).toHaveTextContent(text('en', 'channels.passkeys.neverUsed'));
    expect(phone).toHaveTextContent(new RegExp(text('en', 'channels.passkeys.lastUsed', { date: '.*2026' })));
  });

  it("adds a passkey under the person's name for it, through the browser's dialog", async () => {
    const server = serverWith([]);
    renderInPage(<PasskeyList />);
    expect(await screen.findByText(text('en', 'channels.passkeys.none'))).toBeInTheDocument();
    const name = screen.getByLabelText(text('en', 'channels.passkeys.nameLabel'));
    await userEvent.clear(name);
    await userEvent.type(name, 'desk key');
    await userEvent.click(screen.getByRole('button', { name: text('en', 'channels.passkeys.add') }));
    await waitFor(() => expect(shownNames()).toEqual(['desk key']));
    expect(startRegistration).toHaveBeenCalledWith({
      optionsJSON: { challenge: 'bmV3', rp: { id: 'localhost' } },
    });
    expect(server.callsTo('POST passkeys/add')[0]?.body).toEqual({
      credential: { id: 'new', rawId: 'new', type: 'public-key', response: {} },
      name: 'desk key',
    });
  });

  it('renames and removes a passkey', async () => {
    const server = serverWith([LAPTOP, PHONE]);
    renderInPage(<PasskeyList />);
    await userEvent.click(
      await screen.findByRole('button', {
        name: text('en', 'channels.passkeys.renameLabel', { name: 'work laptop' }),
      }),
    );
    const form = screen.getByRole('form', {
      name: text('en', 'channels.passkeys.renameLabel', { name: 'work laptop' }),
    });
    const input = within(form).getByLabelText(text('en', 'channels.passkeys.nameLabel'));
    await userEvent.clear(input);
    await userEvent.type(input, 'old laptop');
    await userEvent.click(within(form).getByRole('button', { name: text('en', 'channels.passkeys.save') }));
    await waitFor(() => expect(shownNames()).toEqual(['old laptop', 'phone']));
    await userEvent.click(
      screen.getByRole('button', { name: text('en', 'channels.passkeys.removeLabel', { name: 'phone' }) }),
    );
    await waitFor(() => expect(shownNames()).toEqual(['old laptop']));
    expect(server.callsTo('POST passkeys/rename')[0]?.body).toEqual({ id: 'cred-1', name: 'old laptop' });
    expect(server.callsTo('POST passkeys/remove')[0]?.body).toEqual({ id: 'cred-2' });
  });

  it("shows the server's refusal (no registration session) in place of the list", async () => {
    installFakeServer().answer(
      'POST passkeys/list',
      envelopeError(3, 'Registering channels needs a strong sign-in.'),
    );
    renderInPage(<PasskeyList />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Registering channels needs a strong sign-in.',
    );
    expect(screen.queryAllByTestId('passkey')).toEqual([]);
  });

  it('speaks the language of the page (Arabic)', async () => {
    serverWith([LAPTOP]);
    renderInPage(<PasskeyList />, 'ar');
    expect(
      await screen.findByRole('heading', { name: text('ar', 'channels.passkeys.heading') }),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: text('ar', 'channels.passkeys.add') })).toBeInTheDocument();
    expect(await screen.findByText(text('ar', 'channels.passkeys.neverUsed'))).toBeInTheDocument();
  });
});
