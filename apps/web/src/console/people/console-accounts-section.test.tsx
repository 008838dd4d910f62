import type { AdminConsoleAccount } from '@dea/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resetBrowserPasskeys } from '../testing/browser-passkeys';
import { envelope, fakeConsoleApi, refusal, renderConsole } from '../testing/render-console';
import { ConsoleAccountsSection } from './console-accounts-section';

// The passkey library as every console file replaces it: the files of a worker share their modules.
vi.mock('@simplewebauthn/browser', () => import('../testing/browser-passkeys'));
beforeEach(resetBrowserPasskeys);

const HANA: AdminConsoleAccount = {
  id: 'a1',
  username: 'hana',
  displayName: 'Hana Helpdesk',
  role: 'helpdesk',
  scope: null,
  disabled: false,
  source: 'local',
  lastSignInAt: '2026-11-24T10:00:00Z',
  passkeys: [
    { credentialId: 'k1', name: null, createdAt: '2026-11-24T09:00:00Z', lastUsedAt: null },
    { credentialId: 'k2', name: 'Backup', createdAt: '2026-11-24T09:30:00Z', lastUsedAt: null },
  ],
};
const PAT: AdminConsoleAccount = { ...HANA, id: 'a2', username: 'pat', source: 'provider', passkeys: [] };

describe('console accounts in the console', () => {
  it('adds an account and shows its enrolment link once; changes a role and scope; names and removes a passkey', async () => {
    const calls = fakeConsoleApi({
      'GET admin/console-accounts': () => envelope({ accounts: [HANA, PAT] }),
      'POST admin/console-accounts': () =>
        envelope({ url: 'http://dea.test/admin/#enrol=tok', expiresAt: '2026-11-25T10:00:00Z', removed: 0 }),
      'POST admin/console-accounts/a1/role': () => envelope({}),
      'POST admin/console-accounts/a1/passkeys/name': () => envelope({}),
      'POST admin/console-accounts/a1/passkeys/remove': () =>
        refusal(409, 2, 'the last passkey is not removed'),
    });
    renderConsole(<ConsoleAccountsSection />);
    const table = await screen.findByTestId('console-accounts');
    expect(table).toHaveTextContent('Hana Helpdesk (hana)');
    expect(table).toHaveTextContent('the identity provider');
    // An account of the provider takes its role from its groups: no role form.
    expect(screen.queryByRole('form', { name: 'Role of pat' })).toBeNull();

    const add = screen.getByRole('form', { name: 'Add a console account' });
    await userEvent.type(within(add).getByLabelText('Console user name'), 'nora');
    await userEvent.type(within(add).getByLabelText('Limited to the groups'), 'Staff EU, Staff US');
    await userEvent.type(within(add).getByLabelText('Password'), 'a console password');
    await userEvent.click(within(add).getByRole('button', { name: 'Add the account' }));
    expect(await screen.findByTestId('enrolment-link-url')).toHaveTextContent('#enrol=tok');
    expect(
      calls.find((call) => call.path === 'admin/console-accounts' && call.method === 'POST')?.body,
    ).toEqual({
      username: 'nora',
      role: 'helpdesk',
      scope: ['Staff EU', 'Staff US'],
      password: 'a console password',
    });

    const role = screen.getByRole('form', { name: 'Role of hana' });
    await userEvent.selectOptions(within(role).getByLabelText('Role'), 'auditor');
    await userEvent.type(within(role).getByLabelText('Limited to the groups'), 'Staff EU');
    await userEvent.click(within(role).getByRole('button', { name: 'Save' }));
    expect(await screen.findByTestId('accounts-done')).toHaveTextContent('Saved.');
    expect(calls.find((call) => call.path === 'admin/console-accounts/a1/role')?.body).toEqual({
      role: 'auditor',
      scope: ['Staff EU'],
    });

    const first = screen.getByRole('form', { name: 'Passkey 1 of hana' });
    await userEvent.type(within(first).getByLabelText('Name of passkey 1'), 'Office key');
    await userEvent.click(within(first).getByRole('button', { name: 'Save' }));
    await expect
      .poll(() => calls.find((call) => call.path === 'admin/console-accounts/a1/passkeys/name')?.body)
      .toEqual({ credentialId: 'k1', name: 'Office key' });
    await userEvent.click(within(first).getByRole('button', { name: 'Remove passkey 1' }));
    expect(await screen.findByTestId('console-error')).toHaveTextContent('the last passkey is not removed');
  });

  it('disables an account and replaces its passkeys, showing the new enrolment link', async () => {
    const calls = fakeConsoleApi({
      'GET admin/console-accounts': () => envelope({ accounts: [HANA] }),
      'POST admin/console-accounts/a1/disable': () => envelope({ sessionsEnded: 1 }),
      'POST admin/console-accounts/a1/passkeys/reset': () =>
        envelope({ url: 'http://dea.test/admin/#enrol=new', expiresAt: '2026-11-25T10:00:00Z', removed: 2 }),
    });
    renderConsole(<ConsoleAccountsSection />);
    await userEvent.click(await screen.findByRole('button', { name: 'Disable hana' }));
    await expect
      .poll(() => calls.some((call) => call.path === 'admin/console-accounts/a1/disable'))
      .toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Replace the passkeys of hana' }));
    expect(await screen.findByTestId('enrolment-link-url')).toHaveTextContent('#enrol=new');
  });
});
