import { describe } from 'vitest';
import { appTest } from '../../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';
const PASSWORD = 'a console password';

async function addAccount(t: TestApp, username: string, role = 'helpdesk'): Promise<string> {
  const added = await t.dea(
    ['admin', 'add', '--username', username, '--role', role, '--password-stdin'],
    {},
    `${PASSWORD}\n`,
  );
  if (added.code !== 0) throw new Error(added.err);
  // The token of the one-time enrolment link printed with the account.
  return /#enrol=([A-Za-z0-9_-]+)/.exec(added.out)?.[1] ?? '';
}

/** Signs in with the password and answers the cookies and token of the console session. */
async function passwordStep(t: TestApp, username: string, password = PASSWORD) {
  const response = await t.app.inject({
    method: 'POST',
    url: `${BASE}/session`,
    payload: { username, password },
  });
  const cookies = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
  return {
    response,
    headers: {
      cookie: `dea_console=${cookies.dea_console ?? ''}; dea_console_token=${cookies.dea_console_token ?? ''}`,
      'x-console-token': cookies.dea_console_token ?? '',
    },
    cookies: response.cookies,
  };
}

describe.each(DOOR_STORE_KINDS)('console sign-in on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'the password opens only the passkey steps, on a strict, short session',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const enrolment = await addAccount(t, 'ada');
      const { response, headers, cookies } = await passwordStep(t, 'ada');
      expect(response.json()).toEqual({ error: 0, message: '', result: { next: 'register-passkey' } });
      expect(cookies.find((cookie) => cookie.name === 'dea_console')).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
      });
      expect(cookies.find((cookie) => cookie.name === 'dea_console_token')).toMatchObject({
        sameSite: 'Strict',
      });

      const me = await t.app.inject({
        method: 'GET',
        url: `${BASE}/me`,
        headers: { cookie: headers.cookie },
      });
      expect(me.json()).toMatchObject({
        result: { username: 'ada', role: 'helpdesk', passkeyVerified: false },
      });
      // Without the token, a change is refused.
      const noToken = await t.app.inject({
        method: 'POST',
        url: `${BASE}/passkey/registration/options`,
        headers: { cookie: headers.cookie },
        payload: { enrolment },
      });
      expect(noToken.statusCode).toBe(403);
      const options = await t.app.inject({
        method: 'POST',
        url: `${BASE}/passkey/registration/options`,
        headers,
        payload: { enrolment },
      });
      expect(options.json()).toMatchObject({ error: 0, result: { challenge: expect.any(String) } });

      // Idle for the console's 15 minutes: the session is over.
      t.clock.advance(15 * 60_000);
      expect(
        (await t.app.inject({ method: 'GET', url: `${BASE}/me`, headers: { cookie: headers.cookie } }))
          .statusCode,
      ).toBe(401);
    },
  );

  appTest(
    'refuses wrong, unknown and disabled accounts with one answer, and a locked name with error 140',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_SLOWDOWN_MS: '0' });
      await addAccount(t, 'ben');
      await addAccount(t, 'cleo');
      expect((await t.dea(['admin', 'disable', 'cleo'])).code).toBe(0);
      const answers = [
        await passwordStep(t, 'ben', 'wrong'),
        await passwordStep(t, 'nobody', PASSWORD),
        await passwordStep(t, 'cleo', PASSWORD),
      ].map((answer) => ({ status: answer.response.statusCode, body: answer.response.json<unknown>() }));
      expect(answers[0]).toEqual({
        status: 200,
        body: { error: 3, message: expect.any(String), result: null },
      });
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      await passwordStep(t, 'ben', 'wrong');
      await passwordStep(t, 'ben', 'wrong');
      expect((await passwordStep(t, 'ben')).response.json()).toMatchObject({ error: 140 });
    },
  );

  appTest(
    'dea admin manages the accounts: add, list, password, passkeys, disable, remove; sessions end',
    async ({ startApp, expect }) => {
      const t = await startApp();
      await addAccount(t, 'dora', 'admin');
      expect(
        (
          await t.dea(
            ['admin', 'add', '--username', 'dora', '--role', 'admin', '--password-stdin'],
            {},
            `${PASSWORD}\n`,
          )
        ).code,
      ).toBe(1);
      const badRole = await t.dea(
        ['admin', 'add', '--username', 'eve', '--role', 'root', '--password-stdin'],
        {},
        `${PASSWORD}\n`,
      );
      expect(badRole).toMatchObject({
        code: 2,
        err: expect.stringContaining('--role must be one of admin, helpdesk, auditor, not "root"'),
      });
      expect((await t.dea(['admin', 'list'])).out).toContain('dora  "dora"  admin  passkeys 0');
      expect(await t.services.store.audit.list({ event: 'console.account_created' })).toMatchObject([
        { actor: 'cli', details: { username: 'dora', role: 'admin' } },
      ]);

      const { headers } = await passwordStep(t, 'dora');
      const me = () =>
        t.app.inject({ method: 'GET', url: `${BASE}/me`, headers: { cookie: headers.cookie } });
      expect((await me()).statusCode).toBe(200);
      const changed = await t.dea(
        ['admin', 'set-password', 'dora', '--password-stdin'],
        {},
        'another console password\n',
      );
      expect(changed.out).toContain('Set the password of console account dora; 1 sessions ended.');
      expect((await me()).statusCode).toBe(401);
      expect((await passwordStep(t, 'dora')).response.json()).toMatchObject({ error: 3 });
      expect((await passwordStep(t, 'dora', 'another console password')).response.json()).toMatchObject({
        error: 0,
      });
      expect((await t.dea(['admin', 'disable', 'dora'])).out).toContain('1 sessions ended');
      expect((await me()).statusCode).toBe(401);
      expect((await passwordStep(t, 'dora')).response.json()).toMatchObject({ error: 3 });
      await t.dea(['admin', 'enable', 'dora']);
      expect((await t.dea(['admin', 'reset-passkeys', 'dora'])).out).toContain('Removed 0 passkeys');
      expect((await t.dea(['admin', 'remove', 'dora'])).code).toBe(0);
      expect(await t.services.store.console.listAccounts()).toEqual([]);
      expect((await t.dea(['admin', 'remove', 'dora'])).err).toContain('no console account named "dora"');
    },
  );
});
