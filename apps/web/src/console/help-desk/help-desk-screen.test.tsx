import type { HelpDeskUser } from '@dea/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resetBrowserPasskeys } from '../testing/browser-passkeys';
import { envelope, fakeConsoleApi, heldAnswer, refusal, renderConsole } from '../testing/render-console';
import { HelpDeskScreen } from './help-desk-screen';

vi.mock('@simplewebauthn/browser', () => import('../testing/browser-passkeys'));
beforeEach(resetBrowserPasskeys);

const DANA: HelpDeskUser = {
  user: {
    id: 'u1',
    username: 'dana',
    fullName: 'Dana Demo',
    source: 'local',
    disabled: false,
    groups: ['staff'],
  },
  mayIssue: true,
  offers: { onScreen: true, channels: [] },
  policy: { enableECode: true, emergencyCodeDelivery: 'Display', codeValidityMinutes: 15, maxUnusedCodes: 3 },
  channels: [
    { key: 'mobile', masked: '+49 170 ****77', reference: 'ref-1', waiting: null, usableFrom: null },
  ],
  codes: [
    {
      id: 'c1',
      channel: 'screen',
      createdAt: '2026-11-24T10:00:00Z',
      expiresAt: '2026-11-24T10:15:00Z',
      usesLeft: 1,
    },
    {
      id: 'c2',
      channel: 'mobile',
      createdAt: '2026-11-24T11:00:00Z',
      expiresAt: '2026-11-24T11:15:00Z',
      usesLeft: 1,
    },
  ],
  lock: { failures: 3, locked: true, lockedUntil: '2026-11-24T12:00:00Z' },
  sessions: [
    { createdAt: '2026-11-24T09:00:00Z', lastSeenAt: '2026-11-24T09:30:00Z' },
    { createdAt: '2026-11-24T09:10:00Z', lastSeenAt: '2026-11-24T09:50:00Z' },
  ],
  audit: [
    { at: '2026-11-24T09:00:00Z', event: 'signin.success', actor: 'dana', details: {} },
    {
      at: '2026-11-24T08:00:00Z',
      event: 'signin.failed',
      actor: 'dana',
      details: { reason: 'directory-account', directoryProblem: 'must-change-password' },
    },
    {
      at: '2026-11-24T07:00:00Z',
      event: 'signin.failed',
      actor: 'dana',
      details: { reason: 'wrong-password' },
    },
  ],
};

describe('the help desk search', () => {
  it('asks for two characters before it searches', async () => {
    const calls = fakeConsoleApi({});
    renderConsole(<HelpDeskScreen userId={undefined} />);
    await userEvent.type(screen.getByLabelText('Find the user'), 'd{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent('Type at least 2 characters.');
    expect(screen.getByLabelText('Find the user')).toHaveAttribute('aria-invalid', 'true');
    expect(calls).toEqual([]);
  });

  it('searches with the keyboard alone, says it is busy, and lists what it found as links', async () => {
    const answer = heldAnswer();
    const calls = fakeConsoleApi({ 'GET helpdesk/users': () => answer.promise });
    renderConsole(<HelpDeskScreen userId={undefined} />);
    await userEvent.tab();
    expect(screen.getByLabelText('Find the user')).toHaveFocus();
    await userEvent.keyboard(' dana {Enter}');
    expect(await screen.findByRole('button', { name: 'Searching…' })).toBeDisabled();
    answer.give(
      envelope({
        users: [
          {
            id: 'u1',
            username: 'dana',
            fullName: 'Dana Demo',
            source: 'local',
            groups: ['staff', 'vpn'],
            disabled: false,
          },
          { id: 'u2', username: 'dan', fullName: '', source: 'scim', groups: [], disabled: true },
        ],
      }),
    );
    expect(await screen.findByText('Users found: 2')).toBeInTheDocument();
    expect(calls[0]?.query).toEqual({ q: 'dana' });
    const list = screen.getByTestId('helpdesk-results');
    expect(within(list).getByRole('link', { name: /Dana Demo/ })).toHaveAttribute(
      'href',
      '#/helpdesk/user/u1',
    );
    expect(within(list).getByRole('link', { name: /dana · staff, vpn/ })).toBeInTheDocument();
    expect(within(list).getByRole('link', { name: 'dan dan · disabled' })).toBeInTheDocument();
  });

  it('says so when nobody matches', async () => {
    fakeConsoleApi({ 'GET helpdesk/users': () => envelope({ users: [] }) });
    renderConsole(<HelpDeskScreen userId={undefined} />);
    await userEvent.type(screen.getByLabelText('Find the user'), 'zz{Enter}');
    expect(await screen.findByText('Users found: 0')).toBeInTheDocument();
    expect(screen.queryByTestId('helpdesk-results')).not.toBeInTheDocument();
  });

  it('names a failure and what to do, and a session that ended returns to the sign-in', async () => {
    let answer = refusal(503, 5, '');
    fakeConsoleApi({ 'GET helpdesk/users': () => answer });
    const signedOut = vi.fn();
    renderConsole(<HelpDeskScreen userId={undefined} />, signedOut);
    await userEvent.type(screen.getByLabelText('Find the user'), 'dana{Enter}');
    expect(await screen.findByTestId('console-error')).toHaveTextContent(
      'The server is busy or its database cannot be reached.',
    );
    answer = refusal(401, 3, 'You are not allowed to do this.');
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    await vi.waitFor(() => expect(signedOut).toHaveBeenCalledOnce());
    expect(screen.queryByTestId('console-error')).not.toBeInTheDocument();
  });
});

describe("a user's view for the help desk", () => {
  it('shows a spinner while it loads, then the policy, channels, codes, lock, sessions and activity', async () => {
    const answer = heldAnswer();
    fakeConsoleApi({ 'GET helpdesk/users/u1': () => answer.promise });
    renderConsole(<HelpDeskScreen userId="u1" />);
    expect(screen.getByTestId('spinner')).toHaveTextContent('Loading…');
    answer.give(envelope(DANA));
    expect(await screen.findByTestId('helpdesk-user-name')).toHaveTextContent('Dana Demo');
    expect(screen.queryByTestId('spinner')).not.toBeInTheDocument();
    expect(screen.getByTestId('helpdesk-policy')).toHaveTextContent(
      'Codes allowed: shown on screen, valid 15 min, at most 3 unused',
    );
    expect(screen.getByTestId('helpdesk-channels')).toHaveTextContent('Work mobile: +49 170 ****77');
    expect(within(screen.getByTestId('helpdesk-codes')).getAllByRole('row')).toHaveLength(3);
    expect(screen.getByTestId('helpdesk-lock')).toHaveTextContent(
      'Locked until 2026-11-24T12:00:00Z (failed attempts: 3).',
    );
    expect(screen.getByTestId('helpdesk-sessions')).toHaveTextContent(
      'Open sessions: 2 (last active 2026-11-24T09:50:00Z).',
    );
    expect(screen.getByTestId('helpdesk-audit')).toHaveTextContent('signin.success · dana');
    // Active Directory's reason for refusing the account, as the server audited it.
    const [, refusedAccount, wrongPassword] = within(screen.getByTestId('helpdesk-audit')).getAllByRole(
      'listitem',
    );
    expect(refusedAccount).toHaveTextContent(
      'signin.failed · dana · Directory account: must change its password',
    );
    expect(wrongPassword).toHaveTextContent('signin.failed · dana');
    expect(wrongPassword).not.toHaveTextContent('Directory account');
    expect(screen.getByRole('link', { name: 'Back to the search' })).toHaveAttribute('href', '#/helpdesk');
  });

  it('shows a channel that may not receive codes yet as waiting, with the time it may', async () => {
    fakeConsoleApi({
      'GET helpdesk/users/u1': () =>
        envelope({
          ...DANA,
          channels: [
            ...DANA.channels,
            {
              key: 'personalMobile',
              masked: '+49 171 ****42',
              reference: 'ref-2',
              waiting: 'cooling',
              usableFrom: '2026-11-25T10:00:00Z',
            },
            {
              key: 'personalEmail',
              masked: 'd***@e***.org',
              reference: 'ref-3',
              waiting: 'proof-expired',
              usableFrom: null,
            },
          ],
        }),
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    const [work, cooling, stale] = within(await screen.findByTestId('helpdesk-channels')).getAllByRole(
      'listitem',
    );
    expect(work).not.toHaveTextContent('waiting');
    expect(cooling).toHaveTextContent(
      'Personal mobile: +49 171 ****42 — waiting: may receive codes from 2026-11-25T10:00:00Z',
    );
    expect(stale).toHaveTextContent('waiting: must be proven again before it may receive codes');
  });

  it('says what is empty: no codes, channels, sessions or activity, not locked', async () => {
    fakeConsoleApi({
      'GET helpdesk/users/u1': () =>
        envelope({
          ...DANA,
          user: { ...DANA.user, groups: [] },
          policy: { ...DANA.policy, enableECode: false },
          channels: [],
          codes: [],
          lock: { failures: 0, locked: false, lockedUntil: null },
          sessions: [],
          audit: [],
        }),
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    expect(await screen.findByText('No unused codes.')).toBeInTheDocument();
    expect(screen.getByText('No channels registered.')).toBeInTheDocument();
    expect(screen.getByText('No open sessions.')).toBeInTheDocument();
    expect(screen.getByText('No entries.')).toBeInTheDocument();
    expect(screen.getByTestId('helpdesk-policy')).toHaveTextContent(
      "Emergency codes are not allowed for this user's group.",
    );
    expect(screen.getByTestId('helpdesk-lock')).toHaveTextContent('Not locked (failed attempts: 0).');
    expect(screen.getByTestId('helpdesk-unlock')).toBeDisabled();
    expect(screen.getByTestId('helpdesk-end-sessions')).toBeDisabled();
    expect(screen.queryByTestId('helpdesk-revoke-all')).not.toBeInTheDocument();
  });

  it('says a user that is not there is gone', async () => {
    fakeConsoleApi({ 'GET helpdesk/users/u9': () => refusal(404, 2, '') });
    renderConsole(<HelpDeskScreen userId="u9" />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent('This no longer exists.');
    expect(screen.queryByTestId('helpdesk-user-name')).not.toBeInTheDocument();
  });

  it('tells a disabled user that the help desk gives no code', async () => {
    fakeConsoleApi({
      'GET helpdesk/users/u1': () =>
        envelope({ ...DANA, mayIssue: false, user: { ...DANA.user, disabled: true } }),
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    expect(await screen.findByTestId('issue-not-allowed')).toHaveTextContent(
      'This user is disabled: the help desk gives them no code.',
    );
    expect(screen.queryByLabelText('Reason')).not.toBeInTheDocument();
  });

  it('unlocks, ends the sessions, forgets the remembered devices and revokes codes, each said and followed by the user as they are now', async () => {
    let user = DANA;
    const calls = fakeConsoleApi({
      'GET helpdesk/users/u1': () => envelope(user),
      'POST helpdesk/users/u1/unlock': () => {
        user = { ...user, lock: { failures: 0, locked: false, lockedUntil: null } };
        return envelope({ count: 1 });
      },
      'POST helpdesk/users/u1/sessions/end': () => {
        user = { ...user, sessions: [] };
        return envelope({ count: 2 });
      },
      'POST helpdesk/users/u1/devices/forget': () => envelope({ count: 3 }),
      'POST helpdesk/users/u1/codes/revoke': (call) => {
        const { codeId } = call.body as { codeId?: string };
        user = { ...user, codes: user.codes.filter((code) => codeId !== undefined && code.id !== codeId) };
        return envelope({ count: codeId === undefined ? 2 : 1 });
      },
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Unlock' }));
    expect(await screen.findByTestId('helpdesk-done')).toHaveTextContent('The lock was ended.');
    expect(await screen.findByText('Not locked (failed attempts: 0).')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'End all sessions' }));
    expect(await screen.findByText('Sessions ended: 2')).toBeInTheDocument();
    expect(await screen.findByText('No open sessions.')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Forget remembered devices' }));
    expect(await screen.findByText('Remembered devices forgotten: 3')).toBeInTheDocument();

    const firstCode = within(screen.getByTestId('helpdesk-codes')).getAllByRole('row')[1] as HTMLElement;
    await userEvent.click(within(firstCode).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('Codes revoked: 1')).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('helpdesk-codes')).getAllByRole('row')).toHaveLength(2),
    );
    expect(calls.filter((call) => call.method === 'POST').map((call) => [call.path, call.body])).toEqual([
      ['helpdesk/users/u1/unlock', {}],
      ['helpdesk/users/u1/sessions/end', {}],
      ['helpdesk/users/u1/devices/forget', {}],
      ['helpdesk/users/u1/codes/revoke', { codeId: 'c1' }],
    ]);
  });

  it('makes a one-time registration link to give the person, and removes their passkeys', async () => {
    const calls = fakeConsoleApi({
      'GET helpdesk/users/u1': () => envelope(DANA),
      'POST helpdesk/users/u1/registration-link': () =>
        envelope({
          url: 'https://dea.example/dea/channels/#link=abcdefghijklmnop',
          expiresAt: '2026-11-25T18:00:00.000Z',
        }),
      'POST helpdesk/users/u1/passkeys/forget': () => envelope({ count: 2 }),
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Make a registration link' }));
    const made = await screen.findByTestId('helpdesk-registration-link-made');
    expect(made).toHaveTextContent('Give this link to the person: it works once, until');
    expect(within(made).getByText('https://dea.example/dea/channels/#link=abcdefghijklmnop')).toHaveAttribute(
      'dir',
      'ltr',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Remove their passkeys' }));
    expect(await screen.findByText('Passkeys removed: 2')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      'helpdesk/users/u1/registration-link',
      'helpdesk/users/u1/passkeys/forget',
    ]);
  });

  it('says when someone else knows the password, lists the blocked addresses and allows them again', async () => {
    const undone = {
      passwordKnownSince: '2026-11-24T09:40:00Z',
      blocked: [{ channel: 'sms', to: '+49 170 ****99', blockedAt: '2026-11-24T09:40:00Z' }],
    };
    const calls = fakeConsoleApi({
      'GET helpdesk/users/u1': () => envelope({ ...DANA, registrationUndone: undone }),
      'POST helpdesk/users/u1/addresses/allow': () => envelope({ count: 1 }),
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    expect(await screen.findByTestId('helpdesk-password-known')).toHaveTextContent(
      /Someone else knows this person's password.*give them a password link/,
    );
    expect(screen.getByTestId('helpdesk-blocked-addresses')).toHaveTextContent('+49 170 ****99');
    await userEvent.click(screen.getByRole('button', { name: 'Allow the blocked addresses again' }));
    expect(await screen.findByText('Addresses allowed again: 1')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      'helpdesk/users/u1/addresses/allow',
    ]);
  });

  it("asks for the organisation's way for a directory person, and says nothing without an undo", async () => {
    const directory = {
      ...DANA,
      user: { ...DANA.user, source: 'ldap' as const },
      registrationUndone: { passwordKnownSince: '2026-11-24T09:40:00Z', blocked: [] },
    };
    fakeConsoleApi({ 'GET helpdesk/users/u1': () => envelope(directory) });
    const { unmount } = renderConsole(<HelpDeskScreen userId="u1" />);
    expect(await screen.findByTestId('helpdesk-password-known')).toHaveTextContent(/the organisation's way/);
    expect(screen.getByRole('button', { name: 'Allow the blocked addresses again' })).toBeDisabled();
    unmount();
    fakeConsoleApi({
      'GET helpdesk/users/u1': () =>
        envelope({ ...DANA, registrationUndone: { passwordKnownSince: null, blocked: [] } }),
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    await screen.findByTestId('helpdesk-user-name');
    expect(screen.queryByTestId('helpdesk-password-known')).toBeNull();
  });

  it('keeps the issued code on screen while the user is loaded again', async () => {
    const reloaded = heldAnswer();
    let loads = 0;
    fakeConsoleApi({
      'GET helpdesk/users/u1': () => (loads++ === 0 ? envelope(DANA) : reloaded.promise),
      'POST helpdesk/users/u1/codes': () =>
        envelope({ code: 'K7Q2M9X4TP', expiresAt: '2026-11-24T18:00:00.000Z' }),
    });
    renderConsole(<HelpDeskScreen userId="u1" />);
    await userEvent.type(await screen.findByLabelText('Reason'), 'Ticket 4711, called back');
    await userEvent.click(screen.getByRole('button', { name: 'Issue a code' }));
    expect(await screen.findByTestId('issued-code')).toHaveTextContent('K7Q2M9X4TP');
    await vi.waitFor(() => expect(loads).toBe(2));
    expect(screen.getByTestId('helpdesk-user-name').closest('section')).toHaveAttribute('aria-busy', 'true');
    reloaded.give(envelope({ ...DANA, codes: [...DANA.codes, { ...DANA.codes[0], id: 'c3' }] }));
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('helpdesk-codes')).getAllByRole('row')).toHaveLength(4),
    );
    expect(screen.getByTestId('issued-code')).toHaveTextContent('K7Q2M9X4TP');
  });

  it("never shows one user's view while another's loads, and a session that ended returns to the sign-in", async () => {
    const second = heldAnswer();
    fakeConsoleApi({
      'GET helpdesk/users/u1': () => envelope(DANA),
      'GET helpdesk/users/u2': () => second.promise,
    });
    const signedOut = vi.fn();
    const { rerender } = renderConsole(<HelpDeskScreen userId="u1" />, signedOut);
    expect(await screen.findByTestId('helpdesk-user-name')).toHaveTextContent('Dana Demo');
    rerender(<HelpDeskScreen userId="u2" />);
    expect(await screen.findByTestId('spinner')).toBeInTheDocument();
    expect(screen.queryByTestId('helpdesk-user-name')).not.toBeInTheDocument();
    second.give(refusal(401, 3, 'You are not allowed to do this.'));
    await vi.waitFor(() => expect(signedOut).toHaveBeenCalledOnce());
    expect(screen.queryByTestId('console-error')).not.toBeInTheDocument();
  });
});
