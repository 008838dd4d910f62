import type { HelpDeskUser } from '@dea/contract';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resetBrowserPasskeys } from '../testing/browser-passkeys';
import { envelope, fakeConsoleApi, renderConsole } from '../testing/render-console';
import { IssueCodeForm } from './issue-code-form';

vi.mock('@simplewebauthn/browser', () => import('../testing/browser-passkeys'));
beforeEach(resetBrowserPasskeys);

const USER: HelpDeskUser = {
  user: { id: 'u1', username: 'dana', fullName: 'Dana Demo', source: 'local', disabled: false, groups: [] },
  mayIssue: true,
  offers: { onScreen: true, channels: [] },
  policy: { enableECode: true, emergencyCodeDelivery: 'Display', codeValidityMinutes: 15, maxUnusedCodes: 3 },
  channels: [
    { key: 'mobile', masked: '+49 170 ****77', reference: 'ref-1', waiting: null, usableFrom: null },
  ],
  codes: [],
  lock: { failures: 0, locked: false, lockedUntil: null },
  sessions: [],
  audit: [],
};

describe('giving a caller a code', () => {
  it('asks for the passkey again when the server wants it, then issues the code once', async () => {
    let issued = 0;
    const calls = fakeConsoleApi({
      'POST helpdesk/users/u1/codes': () =>
        issued++ === 0
          ? {
              status: 403,
              body: { error: 3, message: 'You are not allowed to do this.', result: { passkey: 'again' } },
            }
          : envelope({ code: 'K7Q2M9X4TP', expiresAt: '2026-11-24T18:00:00.000Z' }),
      'POST passkey/authentication/options': () => envelope({ challenge: 'abc' }),
      'POST passkey/authentication': () => envelope({}),
    });
    const onIssued = vi.fn();
    renderConsole(<IssueCodeForm user={USER} onIssued={onIssued} />);

    await userEvent.click(screen.getByRole('button', { name: 'Issue a code' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Write a reason of 5 to 500 characters.');
    expect(calls).toEqual([]);

    await userEvent.type(screen.getByLabelText('Reason'), 'Ticket 4711, called back');
    await userEvent.click(screen.getByRole('button', { name: 'Issue a code' }));
    expect(await screen.findByTestId('issued-code')).toHaveTextContent('K7Q2M9X4TP');
    expect(calls.map((call) => call.path)).toEqual([
      'helpdesk/users/u1/codes',
      'passkey/authentication/options',
      'passkey/authentication',
      'helpdesk/users/u1/codes',
    ]);
    expect(calls[3]?.body).toEqual({ reason: 'Ticket 4711, called back' });
    expect(onIssued).toHaveBeenCalledOnce();
  });

  it('sends to a channel when one is chosen, and shows a refusal in words', async () => {
    const calls = fakeConsoleApi({
      'POST helpdesk/users/u1/codes/send': () => ({
        body: { error: 148, message: 'Too many unused codes.', result: null },
      }),
    });
    const sending: HelpDeskUser = {
      ...USER,
      policy: { ...USER.policy, emergencyCodeDelivery: 'Channel' },
      offers: { onScreen: true, channels: ['ref-1'] },
    };
    renderConsole(<IssueCodeForm user={sending} onIssued={vi.fn()} />);
    await userEvent.type(screen.getByLabelText('Reason'), 'Ticket 4712, called back');
    await userEvent.click(screen.getByLabelText('Send it to Work mobile +49 170 ****77'));
    await userEvent.click(screen.getByRole('button', { name: 'Send a code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many unused codes.');
    expect(calls[0]?.body).toEqual({ reason: 'Ticket 4712, called back', recipient: 'ref-1' });
  });

  it('for a session of the identity provider, offers to sign in there again instead of a passkey', async () => {
    const calls = fakeConsoleApi({
      'POST helpdesk/users/u1/codes': () => ({
        status: 403,
        body: { error: 3, message: 'You are not allowed to do this.', result: { passkey: 'provider' } },
      }),
    });
    renderConsole(<IssueCodeForm user={USER} onIssued={vi.fn()} />);
    await userEvent.type(screen.getByLabelText('Reason'), 'Ticket 4713, called back');
    await userEvent.click(screen.getByRole('button', { name: 'Issue a code' }));
    expect(await screen.findByTestId('issue-provider-again')).toHaveTextContent('too old to give a code');
    expect(screen.getByRole('link', { name: 'Sign in again' })).toHaveAttribute(
      'href',
      '/dea/admin-api/oidc/start?again=1',
    );
    expect(calls.map((call) => call.path)).toEqual(['helpdesk/users/u1/codes']);
  });

  it('offers no "Send it to …" for a policy that shows codes on screen', async () => {
    fakeConsoleApi({});
    renderConsole(<IssueCodeForm user={USER} onIssued={vi.fn()} />);
    expect(screen.getByLabelText('Show it to me, I read it out')).toBeChecked();
    expect(screen.queryByLabelText(/Send it to/)).toBeNull();
    expect(screen.getAllByRole('radio')).toHaveLength(1);
  });
});
