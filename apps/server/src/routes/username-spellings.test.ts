import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appRadiusServer } from '../testing/app-radius.js';
import { appTest } from '../testing/fixtures.js';
import { radclientReply } from '../testing/radclient.js';
import { checkedPasswords, signInAttempt } from '../testing/sign-in-attempts.js';
import { fullwidth, spellingsOf } from '../testing/spellings.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

const ATTACKER = '203.0.113.77';

describe.each(STORE_KINDS)('one name, every spelling, on %s', (kind) => {
  appTest.override('storeKind', kind);

  const signIn = (t: TestApp, username: string, password: string) =>
    signInAttempt(t, username, password, ATTACKER);

  appTest(
    'a name locked in one spelling is locked in all of them: the right password typed fullwidth or upper case gets 140',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_LOCK_MINUTES: '10' });
      const user = await t.createUser();
      for (let index = 0; index < 3; index += 1)
        expect((await signIn(t, user.username, 'wrong')).json()).toMatchObject({ error: 3 });
      for (const spelling of [
        user.username,
        user.username.toUpperCase(),
        fullwidth(user.username),
        fullwidth(user.username.toUpperCase()),
        `  ${fullwidth(user.username.slice(0, 1))}${user.username.slice(1)}\u3000`,
      ]) {
        const answer = await signIn(t, spelling, user.password);
        expect(answer.json(), spelling).toMatchObject({ error: 140 });
        expect(answer.cookies, spelling).toHaveLength(0);
      }
      expect(await checkedPasswords(t)).toBe(3);
      // Every spelling of the name is audited as the user, never as a new unknown name.
      const locked = await t.services.store.audit.list({ event: 'signin.locked', limit: 100 });
      expect(locked.map((entry) => entry.actor)).toEqual(locked.map(() => user.username));
    },
  );

  appTest(
    '60 parallel spellings of one name from one address get at most DEA_SIGNIN_MAX_FAILURES password checks',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '5' });
      const user = await t.createUser();
      const spellings = spellingsOf(user.username, 60);
      expect(new Set(spellings).size).toBe(60);
      const answers = await Promise.all(spellings.map((spelling) => signIn(t, spelling, 'wrong')));
      const errors = answers.map((answer) => answer.json<{ error: number }>().error);
      expect(errors.filter((error) => error === 3)).toHaveLength(5);
      expect(errors.filter((error) => error === 140)).toHaveLength(55);
      expect(await checkedPasswords(t)).toBe(5);
    },
  );

  appTest(
    'a spelling the profile refuses (a compatibility form) is no user: refused as a wrong password, counted, never a session',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const user = await t.createUser();
      // U+1D42E MATHEMATICAL BOLD SMALL U: a directory would match it to "u".
      const bold = `\u{1D42E}${user.username.slice(1)}`;
      const answer = await signIn(t, bold, user.password);
      expect(answer.json()).toEqual({
        error: 3,
        message: 'The user name or password is incorrect.',
        result: null,
      });
      expect(answer.cookies).toHaveLength(0);
      const [failed] = await t.services.store.audit.list({ event: 'signin.failed', limit: 1 });
      expect(failed).toMatchObject({ userId: null, details: { reason: 'unknown-user' } });
      expect(failed?.actor).toMatch(/^unknown:[\w-]{16}$/);
      expect(JSON.stringify(failed)).not.toContain(user.username.slice(1));
      // The right spelling still signs in: nothing of the refused one counted against the user.
      expect((await signIn(t, user.username.toUpperCase(), user.password)).json()).toMatchObject({
        error: 0,
        result: { username: user.username },
      });
    },
  );

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
