import type { AdminServiceKey } from '@dea/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, heldAnswer, refusal, renderConsole } from '../testing/render-console';
import { ServiceKeysSection } from './service-keys-section';

const KEY: AdminServiceKey = {
  id: 'k1',
  name: 'vpn gateway',
  scopes: ['verify'],
  createdAt: '2026-11-24T10:00:00Z',
  revokedAt: null,
};

describe('the service keys', () => {
  it('shows a spinner, then says there are none yet', async () => {
    const answer = heldAnswer();
    fakeConsoleApi({ 'GET admin/service-keys': () => answer.promise });
    renderConsole(<ServiceKeysSection />);
    expect(screen.getByTestId('spinner')).toBeInTheDocument();
    answer.give(envelope({ keys: [] }));
    expect(await screen.findByText('No service keys yet.')).toBeInTheDocument();
    expect(screen.queryByText(/Revoking takes effect at once/)).not.toBeInTheDocument();
  });

  it('names a failure to load', async () => {
    fakeConsoleApi({ 'GET admin/service-keys': () => refusal(503, 5, '') });
    renderConsole(<ServiceKeysSection />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent('The server is busy');
  });

  it('makes a key with the keyboard, shows its secret once, and lists it', async () => {
    let keys: AdminServiceKey[] = [];
    const calls = fakeConsoleApi({
      'GET admin/service-keys': () => envelope({ keys }),
      'POST admin/service-keys': () => {
        keys = [{ ...KEY, scopes: ['verify', 'scim'] }];
        return envelope({ key: 'dea_sk_secret', serviceKey: keys[0] });
      },
    });
    renderConsole(<ServiceKeysSection />);
    await screen.findByText('No service keys yet.');
    await userEvent.type(screen.getByLabelText('Name'), 'vpn gateway');
    await userEvent.tab();
    await userEvent.tab();
    expect(screen.getByLabelText('Provision users and groups (SCIM)')).toHaveFocus();
    await userEvent.keyboard(' ');
    await userEvent.tab();
    await userEvent.keyboard('{Enter}');
    expect(await screen.findByTestId('service-key-secret')).toHaveTextContent('dea_sk_secret');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      name: 'vpn gateway',
      scopes: ['verify', 'scim'],
    });
    expect(await screen.findByTestId('service-keys')).toHaveTextContent('verify, scim');
    await userEvent.click(screen.getByRole('button', { name: 'I have stored it' }));
    expect(screen.queryByTestId('service-key-secret')).not.toBeInTheDocument();
  });

  it('revokes a key only once confirmed', async () => {
    let keys = [KEY, { ...KEY, id: 'k2', name: 'old', revokedAt: '2026-11-20T10:00:00Z' }];
    const calls = fakeConsoleApi({
      'GET admin/service-keys': () => envelope({ keys }),
      'POST admin/service-keys/k1/revoke': () => {
        keys = keys.map((key) => ({ ...key, revokedAt: key.revokedAt ?? '2026-11-24T11:00:00Z' }));
        return envelope(keys[0]);
      },
    });
    renderConsole(<ServiceKeysSection />);
    const table = await screen.findByTestId('service-keys');
    expect(table).toHaveTextContent('revoked 2026-11-20T10:00:00Z');
    expect(screen.getByText(/Revoking takes effect at once/)).toBeInTheDocument();
    await userEvent.click(within(table).getByRole('button', { name: 'Revoke' }));
    await userEvent.click(within(table).getByRole('button', { name: 'Cancel' }));
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
    await userEvent.click(within(table).getByRole('button', { name: 'Revoke' }));
    await userEvent.click(within(table).getByRole('button', { name: 'Revoke vpn gateway now' }));
    expect(await within(table).findByText('revoked 2026-11-24T11:00:00Z')).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Revoke' })).not.toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      'admin/service-keys/k1/revoke',
    ]);
  });
});
