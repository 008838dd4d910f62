import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appRadiusServer } from '../testing/app-radius.js';
import { appTest } from '../testing/fixtures.js';
import { radclientReply } from '../testing/radclient.js';
import { signInAttempt } from '../testing/sign-in-attempts.js';
import { fullwidth } from '../testing/spellings.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

const ATTACKER = '203.0.113.77';

describe.each(DOOR_STORE_KINDS)('one name, every spelling, on %s', (kind) => {
  appTest.override('storeKind', kind);

  const signIn = (t: TestApp, username: string, password: string) =>
    signInAttempt(t, username, password, ATTACKER);

  appTest(
    'verification by user name, /validate/check and RADIUS find the user by any spelling, and nobody by a refused one',
    async ({ startApp, expect, onTestFinished }) => {
      const t = await startApp();
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'doors',
        ['verify'],
        t.clock.now(),
      );
      const user = await t.createUser();
      const bold = `\u{1D42E}${user.username.slice(1)}`;

      const verifyByName = async (username: string, code: string) =>
        (
          await t.call(`/dea/api/tempPass/verify`, { username, code }, undefined, {
            authorization: `Bearer ${key}`,
          })
        ).json<{ result: { valid: boolean } }>().result.valid;
      let code = await t.codeOnScreen(user);
      expect(await verifyByName(bold, code)).toBe(false);
      expect(await verifyByName(fullwidth(user.username.toUpperCase()), code)).toBe(true);

      const validate = async (username: string, pass: string) =>
        (
          await t.app.inject({
            method: 'POST',
            url: '/validate/check',
            headers: { authorization: key },
            payload: { user: username, pass },
          })
        ).json<{ result: { value: boolean } }>().result.value;
      code = await t.codeOnScreen(user);
      expect(await validate(bold, code)).toBe(false);
      expect(await validate(user.username.toUpperCase(), code)).toBe(true);

      const secret = 'spellings-radius-secret';
      const server = await appRadiusServer(t, secret, onTestFinished);
      code = await t.codeOnScreen(user);
      expect((await radclientReply(server.port, secret, { userName: bold, password: code })).answer).toBe(
        'Access-Reject',
      );
      expect(
        (await radclientReply(server.port, secret, { userName: fullwidth(user.username), password: code }))
          .answer,
      ).toBe('Access-Accept');
      // Three codes, three uses, each audited under the one name.
      const used = await t.services.store.audit.list({ userId: user.id, event: 'code.used' });
      expect(used).toHaveLength(3);
    },
  );

  appTest(
    'the CLI and the console take any spelling of a name, store one, and refuse a second spelling of it',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const added = await t.dea(
        ['user', 'add', '--username', 'ＬＡlice', '--full-name', 'L Alice', '--password-stdin'],
        {},
        'a good long password\n',
      );
      expect(added).toMatchObject({ code: 0, out: expect.stringContaining('Added user lalice') });
      const again = await t.dea(
        ['user', 'add', '--username', 'LALICE', '--full-name', 'Other', '--password-stdin'],
        {},
        'a good long password\n',
      );
      expect(again).toMatchObject({
        code: 1,
        err: expect.stringContaining('a user named "lalice" already exists'),
      });
      const bold = await t.dea(
        ['user', 'add', '--username', '\u{1D425}alice', '--full-name', 'X', '--password-stdin'],
        {},
        'a good long password\n',
      );
      expect(bold).toMatchObject({ code: 2, err: expect.stringContaining('U+1D425') });
      expect(await t.dea(['user', 'update', 'ｌalice', '--full-name', 'Lara Alice'])).toMatchObject({
        code: 0,
      });
      expect(await t.services.store.users.findByUsername(usernameOrThrow('lalice'))).toMatchObject({
        fullName: 'Lara Alice',
      });
      expect((await signIn(t, 'ｌＡＬＩＣＥ', 'a good long password')).json()).toMatchObject({
        error: 0,
        result: { username: 'lalice' },
      });

      const console = await t.dea(
        ['admin', 'add', '--username', 'Ａda', '--role', 'helpdesk', '--password-stdin'],
        {},
        'a console password\n',
      );
      expect(console.code, console.err).toBe(0);
      const session = await t.app.inject({
        method: 'POST',
        url: '/dea/admin-api/session',
        payload: { username: 'ADA', password: 'a console password' },
      });
      expect(session.json()).toMatchObject({ error: 0, result: { next: 'register-passkey' } });
    },
  );
});
