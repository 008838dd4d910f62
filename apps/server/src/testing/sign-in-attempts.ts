import type { TestApp } from './test-app.js';

/** A sign-in on the login application's API, from a client address of the test's choice. */
export const signInAttempt = (
  t: TestApp,
  username: string,
  password: string,
  remoteAddress = '198.51.100.7',
) =>
  t.app.inject({
    method: 'POST',
    url: '/login/api/session',
    payload: { username, password },
    remoteAddress,
  });

/** Passwords that reached the check: every check ends as a failure or a success in the audit log. */
export const checkedPasswords = async (t: TestApp): Promise<number> =>
  (await t.services.store.audit.list({ limit: 10_000 })).filter(
    (entry) => entry.event === 'signin.failed' || entry.event === 'signin.succeeded',
  ).length;
