import type { AdminPerson } from '@dea/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resetBrowserPasskeys } from '../testing/browser-passkeys';
import { envelope, fakeConsoleApi, refusal, renderConsole } from '../testing/render-console';
import { PeopleScreen } from './people-screen';

// The passkey library as every console file replaces it: the files of a worker share their modules.
vi.mock('@simplewebauthn/browser', () => import('../testing/browser-passkeys'));
beforeEach(resetBrowserPasskeys);

const NINA: AdminPerson = {
  id: 'u1',
  username: 'nina',
  fullName: 'Nina Novak',
  locale: 'de',
  timeZone: null,
  source: 'local',
  disabled: false,
  createdAt: '2026-11-24T10:00:00Z',
  lastLoginAt: null,
  editable: {
    fullName: true,
    locale: true,
    timeZone: true,
    password: true,
    disabled: true,
    removal: true,
    sessions: true,
    channels: true,
  },
  groups: [
    { id: 'g1', name: 'Staff', owner: 'local', member: false },
    { id: 'g2', name: 'Engineering', owner: 'scim', member: true },
  ],
  channels: [{ key: 'mobile', address: '+49 *** ***12', source: 'local', origin: 'source' }],
  pendingChannels: [],
};

describe('people in the console', () => {
  it('finds users and adds one with the keyboard, then opens it', async () => {
    const calls = fakeConsoleApi({
      'GET admin/people': (call) =>
        envelope({
          users:
            call.query?.q === 'nin'
              ? [{ id: 'u1', username: 'nina', fullName: 'Nina Novak', source: 'local', disabled: false }]
              : [],
        }),
      'POST admin/people': () => envelope({ id: 'u2' }),
    });
    renderConsole(<PeopleScreen userId={undefined} />);
    expect(await screen.findByText('No user found.')).toBeInTheDocument();
    await userEvent.type(screen.getByRole('searchbox', { name: 'Find a user' }), 'nin{Enter}');
    const table = await screen.findByTestId('people');
    expect(within(table).getByRole('link', { name: 'nina' }).getAttribute('href')).toBe('#/people/u1');
    expect(table).toHaveTextContent('this server');

    await userEvent.type(screen.getByLabelText('User name'), 'omar');
    await userEvent.type(screen.getByLabelText('Full name'), 'Omar Ortiz{Enter}');
    await screen.findByTestId('person-add');
    await expect.poll(() => window.location.hash).toBe('#/people/u2');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      username: 'omar',
      fullName: 'Omar Ortiz',
    });
  });

  it("edits a user, disables them, makes a password link, and shows another source's group read-only", async () => {
    let person = NINA;
    const calls = fakeConsoleApi({
      'GET admin/people/u1': () => envelope(person),
      'POST admin/people/u1': () => envelope({ changed: ['fullName'], sessionsEnded: 0 }),
      'POST admin/people/u1/disable': () => {
        person = { ...person, disabled: true };
        return envelope({ changed: ['disabled'], sessionsEnded: 1 });
      },
      'POST admin/people/u1/password-link': () =>
        envelope({ url: 'http://dea.test/login/#reset=tok', expiresAt: '2026-11-25T10:00:00Z' }),
      'POST admin/people/u1/groups': () => envelope({ changed: ['groups'], sessionsEnded: 0 }),
    });
    renderConsole(<PeopleScreen userId="u1" />);
    const fullName = await screen.findByLabelText('Full name');
    await userEvent.clear(fullName);
    await userEvent.type(fullName, 'Nina Nowak');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByTestId('person-done')).toHaveTextContent('Saved.');
    expect(calls.find((call) => call.path === 'admin/people/u1' && call.method === 'POST')?.body).toEqual({
      fullName: 'Nina Nowak',
      locale: 'de',
      timeZone: null,
    });

    await userEvent.click(screen.getByRole('button', { name: 'Disable' }));
    expect(await screen.findByRole('button', { name: 'Enable' })).toBeInTheDocument();
    expect(screen.getByTestId('person-state')).toHaveTextContent('disabled');

    await userEvent.click(screen.getByRole('button', { name: 'Link to set a password' }));
    expect(await screen.findByTestId('password-link-url')).toHaveTextContent(
      'http://dea.test/login/#reset=tok',
    );

    const groups = screen.getByTestId('person-groups');
    expect(within(groups).getByRole('checkbox', { name: /Engineering|identity provider/ })).toBeDisabled();
    await userEvent.click(within(groups).getByRole('checkbox', { name: 'Member' }));
    expect(calls.find((call) => call.path === 'admin/people/u1/groups')?.body).toEqual({
      groupId: 'g1',
      member: true,
    });
    expect(screen.getByTestId('person-channels')).toHaveTextContent('+49 *** ***12');
  });

  it('shows a user without a language with an empty one, and keeps it none while the field is left empty', async () => {
    const calls = fakeConsoleApi({
      'GET admin/people/u1': () => envelope({ ...NINA, locale: null }),
      'POST admin/people/u1': () => envelope({ changed: ['fullName'], sessionsEnded: 0 }),
    });
    renderConsole(<PeopleScreen userId="u1" />);
    const fullName = await screen.findByLabelText('Full name');
    expect(screen.getByLabelText('Language')).toHaveValue('');
    await userEvent.type(fullName, ' N.');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByTestId('person-done')).toHaveTextContent('Saved.');
    expect(calls.find((call) => call.path === 'admin/people/u1' && call.method === 'POST')?.body).toEqual({
      fullName: 'Nina Novak N.',
      timeZone: null,
    });
  });

  it('adds a channel: a code goes to the address, and the code the person reads out makes it the channel', async () => {
    let person = NINA;
    const calls = fakeConsoleApi({
      'GET admin/people/u1': () => envelope(person),
      'POST admin/people/u1/channels/proofs': () => {
        person = {
          ...person,
          pendingChannels: [
            { key: 'personalMobile', to: '+49 *** ***61', proofId: 'p1', expiresAt: '2026-11-24T10:15:00Z' },
          ],
        };
        return envelope({ proofId: 'p1', to: '+49 *** ***61', expiresAt: '2026-11-24T10:15:00Z' });
      },
      'POST admin/people/u1/channels/prove': () => {
        person = {
          ...person,
          pendingChannels: [],
          channels: [
            ...person.channels,
            { key: 'personalMobile', address: '+49 *** ***61', source: 'local', origin: 'source' },
          ],
        };
        return envelope({ changed: ['channels.personalMobile'], sessionsEnded: 0 });
      },
      'POST admin/people/u1/channels/remove': () => {
        person = { ...person, channels: person.channels.filter((channel) => channel.key !== 'mobile') };
        return envelope({ changed: ['channels.mobile'], sessionsEnded: 0 });
      },
    });
    renderConsole(<PeopleScreen userId="u1" />);
    await userEvent.selectOptions(await screen.findByLabelText('Kind of channel'), 'Personal mobile');
    await userEvent.type(screen.getByLabelText('Phone number or e-mail address'), '+49 170 5550161');
    await userEvent.click(screen.getByRole('button', { name: 'Send a code' }));
    expect(await screen.findByTestId('person-channels-done')).toHaveTextContent(
      'A code was sent to +49 *** ***61.',
    );
    expect(calls.find((call) => call.path === 'admin/people/u1/channels/proofs')?.body).toEqual({
      key: 'personalMobile',
      address: '+49 170 5550161',
    });
    // The address is no channel until the code is entered.
    expect(screen.getByTestId('person-channels')).not.toHaveTextContent('***61');
    const pending = await screen.findByTestId('person-channel-pending');
    expect(pending).toHaveTextContent('Personal mobile +49 *** ***61: waiting for its code');
    await userEvent.type(within(pending).getByLabelText('Code the person reads out'), '12345678');
    await userEvent.click(within(pending).getByRole('button', { name: 'Confirm the address' }));
    expect(
      await screen.findByText("The address is the channel now; the person's other channels were told."),
    ).toBeInTheDocument();
    expect(calls.find((call) => call.path === 'admin/people/u1/channels/prove')?.body).toEqual({
      proofId: 'p1',
      code: '12345678',
    });
    await expect.poll(() => screen.getByTestId('person-channels').textContent).toContain('***61');
    expect(screen.queryByTestId('person-channel-pending')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Remove Work mobile' }));
    expect(await screen.findByText('Channel removed.')).toBeInTheDocument();
    await expect.poll(() => screen.getByTestId('person-channels').textContent).not.toContain('***12');
  });

  it("shows a directory user's channels read-only, without a form to change them", async () => {
    fakeConsoleApi({
      'GET admin/people/u1': () =>
        envelope({ ...NINA, source: 'ldap', editable: { ...NINA.editable, channels: false } }),
    });
    renderConsole(<PeopleScreen userId="u1" />);
    const channels = await screen.findByTestId('person-channels');
    expect(channels).toHaveTextContent('Work mobile: +49 *** ***12');
    expect(within(channels).queryByRole('button')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Send a code' })).toBeNull();
    expect(
      within(screen.getByTestId('person-channels-section')).getByText(
        /Read-only: it comes from the directory/,
      ),
    ).toBeInTheDocument();
  });

  it("shows what a directory owns read-only with its source, and the server's refusal", async () => {
    fakeConsoleApi({
      'GET admin/people/u1': () =>
        envelope({
          ...NINA,
          source: 'ldap',
          editable: { ...NINA.editable, fullName: false, password: false },
        }),
      'POST admin/people/u1/sessions/end': () =>
        refusal(409, 2, "nina's sessions come from the directory (LDAP); change it there"),
    });
    renderConsole(<PeopleScreen userId="u1" />);
    const fullName = await screen.findByLabelText('Full name');
    expect(fullName).toHaveAttribute('readonly');
    expect(fullName).toHaveAccessibleDescription(
      'Read-only: it comes from the directory (LDAP) and is changed there.',
    );
    expect(screen.queryByRole('button', { name: 'Link to set a password' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'End their sessions' }));
    expect(await screen.findByTestId('console-error')).toHaveTextContent('directory');
  });
});
