import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { envelopeError, httpStatus, installFakeServer, ok, type FakeServer } from '../testing/fake-server';
import { navigations } from '../testing/render-page';
import { text } from '../testing/test-messages';
import { renderChannels } from './channels-app-fixture';

vi.mock('@simplewebauthn/browser', () => import('../console/testing/browser-passkeys'));

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
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
