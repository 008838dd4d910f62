import {
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  type AdminGroup,
  type AdminGroups,
  type PolicyOptions,
} from '@dea/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, heldAnswer, refusal, renderConsole } from '../testing/render-console';
import { GroupsSection } from './groups-section';

const DEFAULTS: PolicyOptions = {
  enableECode: false,
  emergencyCodeDelivery: 'Display',
  codeLength: 10,
  codeAlphabet: 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789',
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 3,
};
const group = (id: string, name: string, priority: number, stored: boolean): AdminGroup => ({
  id,
  name,
  priority,
  members: 2,
  stored: stored ? { enableECode: true } : null,
  effective: { ...DEFAULTS, enableECode: stored, codeValidityMinutes: 30 },
  issuers: stored ? ['admin', 'helpdesk'] : ['admin'],
  screenCodeTrust: { screenCodeTrustedNetworks: [], screenCodeRememberedDeviceDays: 0 },
  owner: 'local',
});

describe('the groups and their policies', () => {
  it('shows a spinner, then the groups highest priority first', async () => {
    const answer = heldAnswer();
    fakeConsoleApi({ 'GET admin/groups': () => answer.promise });
    renderConsole(<GroupsSection />);
    expect(screen.getByTestId('spinner')).toBeInTheDocument();
    answer.give(
      envelope({
        groups: [group('g1', 'staff', 10, true), group('g2', 'vip', 50, false)],
        defaults: DEFAULTS,
      }),
    );
    const rows = within(await screen.findByTestId('groups')).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual([
      'NamePriorityMembersEmergency codesMay issue codesActions',
      'vip502no policyAdministratorEdit vip',
      'staff102allowed, valid 30 minAdministrator, Help deskEdit staff',
    ]);
  });

  it('says there are none, and names a failure', async () => {
    let answer = envelope({ groups: [], defaults: DEFAULTS });
    fakeConsoleApi({ 'GET admin/groups': () => answer });
    const { unmount } = renderConsole(<GroupsSection />);
    expect(await screen.findByText('No groups yet.')).toBeInTheDocument();
    unmount();
    answer = refusal(500, 1, '');
    renderConsole(<GroupsSection />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent('Something went wrong.');
  });

  it('adds a group and lists it', async () => {
    let groups: AdminGroups['groups'] = [];
    const calls = fakeConsoleApi({
      'GET admin/groups': () => envelope({ groups, defaults: DEFAULTS }),
      'POST admin/groups': (call) => {
        const { name, priority } = call.body as { name: string; priority: number };
        groups = [group('g3', name, priority, false)];
        return envelope({ id: 'g3' });
      },
    });
    renderConsole(<GroupsSection />);
    await screen.findByText('No groups yet.');
    await userEvent.type(screen.getByLabelText('Name'), ' vpn users ');
    await userEvent.clear(screen.getByLabelText('Priority'));
    await userEvent.type(screen.getByLabelText('Priority'), '20{Enter}');
    expect(await screen.findByText('The group vpn users was added.')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Edit vpn users' })).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ name: 'vpn users', priority: 20 });
    expect(screen.getByLabelText('Name')).toHaveValue('');
  });

  it('says why the server refused a new group', async () => {
    fakeConsoleApi({
      'GET admin/groups': () => envelope({ groups: [], defaults: DEFAULTS }),
      'POST admin/groups': () => refusal(400, 4, 'A group named staff exists already.'),
    });
    renderConsole(<GroupsSection />);
    await screen.findByText('No groups yet.');
    await userEvent.type(screen.getByLabelText('Name'), 'staff{Enter}');
    expect(await screen.findByTestId('console-error')).toHaveTextContent(
      'A group named staff exists already.',
    );
  });

  it("opens a group's policy, sends only what changed, and the issuers on their own", async () => {
    const calls = fakeConsoleApi({
      'GET admin/groups': () => envelope({ groups: [group('g1', 'staff', 10, true)], defaults: DEFAULTS }),
      'POST admin/groups/g1/policy': () => envelope({ options: {} }),
    });
    renderConsole(<GroupsSection />);
    const edit = await screen.findByRole('button', { name: 'Edit staff' });
    await userEvent.click(edit);
    expect(edit).toHaveAttribute('aria-expanded', 'true');
    const editor = screen.getByTestId('policy-editor');
    expect(within(editor).getByRole('heading', { name: 'Policy of staff' })).toBeInTheDocument();
    expect(within(editor).getByLabelText('Emergency codes allowed')).toHaveAccessibleDescription(
      'Default: no',
    );

    await userEvent.click(within(editor).getByRole('button', { name: 'Save the policy' }));
    expect(await within(editor).findByTestId('policy-saved')).toHaveTextContent('Nothing was changed.');

    const minutes = within(editor).getByLabelText('Valid for minutes (1 to 10080)');
    await userEvent.clear(minutes);
    await userEvent.type(minutes, '60');
    await userEvent.selectOptions(within(editor).getByLabelText('How the code is given'), 'Channel');
    await userEvent.click(within(editor).getByLabelText('Help desk'));
    await userEvent.type(
      within(editor).getByLabelText('Trusted networks'),
      '10.20.0.0/16{enter}2001:db8::/32',
    );
    await userEvent.type(within(editor).getByLabelText(/^Days a device stays remembered/), '{backspace}30');
    await userEvent.click(within(editor).getByRole('button', { name: 'Save the policy' }));
    expect(await within(editor).findByText('The policy of staff was saved.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.body)).toEqual([
      {
        category: POLICY_CATEGORY_SELF_SERVICE,
        options: { emergencyCodeDelivery: 'Channel', codeValidityMinutes: 60 },
      },
      { category: POLICY_CATEGORY_HELP_DESK, options: { issuers: ['admin'] } },
      {
        category: POLICY_CATEGORY_CHANNEL_REGISTRATION,
        options: {
          screenCodeTrustedNetworks: ['10.20.0.0/16', '2001:db8::/32'],
          screenCodeRememberedDeviceDays: 30,
        },
      },
    ]);

    await userEvent.click(within(editor).getByRole('button', { name: 'Close' }));
    expect(screen.queryByTestId('policy-editor')).not.toBeInTheDocument();
  });

  it('creates the policy of a group that has none, and shows a refused option', async () => {
    const calls = fakeConsoleApi({
      'GET admin/groups': () => envelope({ groups: [group('g2', 'vip', 50, false)], defaults: DEFAULTS }),
      'POST admin/groups/g2/policy': () => refusal(400, 4, 'codeLength: 5 is below 6.'),
    });
    renderConsole(<GroupsSection />);
    await userEvent.click(await screen.findByRole('button', { name: 'Edit vip' }));
    expect(
      screen.getByText('This group has no policy yet; saving creates one with these values.'),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Save the policy' }));
    expect(await screen.findByTestId('console-error')).toHaveTextContent('codeLength: 5 is below 6.');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      category: POLICY_CATEGORY_SELF_SERVICE,
      options: { enableECode: false },
    });
  });
});
