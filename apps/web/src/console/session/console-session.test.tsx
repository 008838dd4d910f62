import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, renderConsole } from '../testing/render-console';
import { ConsoleSession } from './console-session';

const ended = { status: 401, body: { error: 3, message: 'You are not allowed to do this.', result: null } };

describe('the console session', () => {
  it('opens the screens of the role once the passkey is done, and returns to the sign-in with a word why when the session ends', async () => {
    window.location.hash = '';
    fakeConsoleApi({
      'GET me': () =>
        envelope({
          username: 'hana',
          displayName: 'Hana Helpdesk',
          role: 'helpdesk',
          passkeyVerified: true,
          next: null,
        }),
      'GET helpdesk/users': () => ended,
    });
    renderConsole(<ConsoleSession />);
    expect(await screen.findByRole('heading', { name: 'Help a user' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Console' })).toHaveTextContent('Help desk');
    expect(screen.queryByRole('link', { name: 'Audit log' })).not.toBeInTheDocument();

    await userEvent.type(screen.getByLabelText('Find the user'), 'dana');
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByRole('heading', { name: 'Sign in to the console' })).toBeInTheDocument();
    expect(screen.getByTestId('console-notice')).toHaveTextContent('Your console session ended');
  });

  it('goes on with the passkey step a reload left half done', async () => {
    fakeConsoleApi({
      'GET me': () =>
        envelope({
          username: 'ada',
          displayName: 'Ada',
          role: 'admin',
          passkeyVerified: false,
          next: 'register-passkey',
        }),
    });
    renderConsole(<ConsoleSession />);
    expect(await screen.findByRole('button', { name: 'Register a passkey' })).toBeInTheDocument();
  });

  it("takes the enrolment link off the address and sends its token with the first passkey's registration", async () => {
    window.history.replaceState(null, '', '/admin/#enrol=the-link-token');
    const calls = fakeConsoleApi({
      'GET me': () =>
        envelope({
          username: 'ada',
          displayName: 'Ada',
          role: 'admin',
          passkeyVerified: false,
          next: 'register-passkey',
        }),
      'POST passkey/registration/options': () => ({
        body: { error: 3, message: 'This enrolment link cannot be used.', result: null },
      }),
    });
    renderConsole(<ConsoleSession />);
    await userEvent.click(await screen.findByRole('button', { name: 'Register a passkey' }));
    expect(window.location.hash).toBe('');
    expect(screen.getByTestId('console-enrolment')).toHaveTextContent('You opened your enrolment link');
    expect(await screen.findByTestId('console-error')).toHaveTextContent(
      'This enrolment link cannot be used.',
    );
    expect(calls.find((call) => call.path === 'passkey/registration/options')?.body).toEqual({
      enrolment: 'the-link-token',
    });
    window.sessionStorage.clear();
  });

  it('says a first passkey needs the enrolment link when none was opened', async () => {
    window.sessionStorage.clear();
    const calls = fakeConsoleApi({
      'GET me': () =>
        envelope({
          username: 'bo',
          displayName: 'Bo',
          role: 'admin',
          passkeyVerified: false,
          next: 'register-passkey',
        }),
      'POST passkey/registration/options': () => ({
        body: {
          error: 3,
          message: "Registering this account's first passkey needs its enrolment link.",
          result: null,
        },
      }),
    });
    renderConsole(<ConsoleSession />);
    expect(await screen.findByTestId('console-enrolment')).toHaveTextContent(
      'Registering your first passkey needs the enrolment link an administrator gave you.',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Register a passkey' }));
    expect(await screen.findByTestId('console-error')).toHaveTextContent('needs its enrolment link');
    expect(calls.find((call) => call.path === 'passkey/registration/options')?.body).toEqual({});
  });
});
