import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow } from '@dea/contract';
import { describe, inject } from 'vitest';
import { issueCode } from '../domain/codes/codes.js';
import { resolvePolicy } from '../domain/policies/policy.js';
import { appRadiusServer } from '../testing/app-radius.js';
import { appTest } from '../testing/fixtures.js';
import { createLdapTree, DIRECTORY_PEOPLE } from '../testing/ldap-tree.js';
import { radclient } from '../testing/radclient.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';
import { parsePasswordAndCode, splitPasswordAndCode } from './radius-policy.js';

const SECRET = 'radius-pw-code-secret-0123';

const radiusOf = async (t: TestApp, onTestFinished: (fn: () => Promise<void>) => void): Promise<number> =>
  (await appRadiusServer(t, SECRET, onTestFinished)).port;

/** A code for the user under their group's policy, as the page issues it. */
async function codeOf(t: TestApp, userId: string): Promise<string> {
  const { store, keys, config } = t.services;
  const policy = resolvePolicy(
    await store.groups.findPolicyOfUser(userId, POLICY_CATEGORY_SELF_SERVICE),
    config.codeDefaults,
  );
  return (
    await issueCode(store, keys.codeHash, {
      userId,
      policy,
      channelType: null,
      clientAddress: null,
      now: t.clock.now(),
    })
  ).code;
}

describe('splitting password and code', () => {
  appTest('takes the code from the end, or after the last separator', ({ expect }) => {
    expect(splitPasswordAndCode('pässwörd2345ABCDEF', { kind: 'concatenated' }, 10)).toEqual({
      password: 'pässwörd',
      code: '2345ABCDEF',
    });
    expect(splitPasswordAndCode('2345ABCDEF', { kind: 'concatenated' }, 10)).toBeUndefined();
    expect(splitPasswordAndCode('a,b,c,CODE', { kind: 'separated', separator: ',' }, 10)).toEqual({
      password: 'a,b,c',
      code: 'CODE',
    });
    expect(splitPasswordAndCode(',CODE', { kind: 'separated', separator: ',' }, 10)).toBeUndefined();
    expect(splitPasswordAndCode('pw,', { kind: 'separated', separator: ',' }, 10)).toBeUndefined();
    expect(parsePasswordAndCode('separator:+')).toEqual({ kind: 'separated', separator: '+' });
    expect(parsePasswordAndCode('both')).toMatch(/must be off, concatenated or separator/);
  });
});

describe.each(STORE_KINDS)('RADIUS password and code in one field on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'a local user: the password then the code; either wrong is a reject, and a wrong password spends no code',
    async ({ startApp, expect, onTestFinished }) => {
      const t = await startApp();
      const port = await radiusOf(t, onTestFinished);
      const user = await t.createUser();
      const group = `group-${user.username}`;
      expect(
        (await t.dea(['group', 'radius', 'set', group, '--password-and-code', 'concatenated'], {})).code,
      ).toBe(0);
      const code = await codeOf(t, user.id);

      expect(await radclient(port, SECRET, { userName: user.username, password: code })).toBe(
        'Access-Reject',
      );
      expect(await radclient(port, SECRET, { userName: user.username, password: `wrong horse${code}` })).toBe(
        'Access-Reject',
      );
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'signin.failed' })).toMatchObject([
        { details: { reason: 'wrong-password' }, clientAddress: '127.0.0.1' },
        { details: { reason: 'wrong-password' }, clientAddress: '127.0.0.1' },
      ]);
      expect(
        await radclient(port, SECRET, { userName: user.username, password: `${user.password}WRONG23456` }),
      ).toBe('Access-Reject');
      expect(
        await radclient(port, SECRET, { userName: user.username, password: `${user.password}${code}` }),
      ).toBe('Access-Accept');
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.used' })).toHaveLength(1);

      expect(
        (await t.dea(['group', 'radius', 'set', group, '--password-and-code', 'separator:,'], {})).code,
      ).toBe(0);
      const next = await codeOf(t, user.id);
      expect(
        await radclient(port, SECRET, { userName: user.username, password: `${user.password},${next}` }),
      ).toBe('Access-Accept');
      expect(
        (await t.dea(['group', 'radius', 'set', group, '--password-and-code', 'always'], {})).err,
      ).toContain(
        '--password-and-code must be off, concatenated or separator:<1 to 8 characters>, not "always"',
      );
    },
  );

  appTest(
    'the sign-in limits hold for RADIUS passwords in a parallel burst',
    async ({ startApp, expect, onTestFinished }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_SLOWDOWN_MS: '0' });
      const port = await radiusOf(t, onTestFinished);
      const user = await t.createUser();
      await t.dea(
        ['group', 'radius', 'set', `group-${user.username}`, '--password-and-code', 'separator:|'],
        {},
      );
      const code = await codeOf(t, user.id);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          radclient(port, SECRET, { userName: user.username, password: `guess-${index}|${code}` }),
        ),
      );
      expect(answers).toEqual(Array.from({ length: 8 }, () => 'Access-Reject'));
      expect(await t.services.store.audit.list({ userId: user.id, event: 'signin.failed' })).toHaveLength(3);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'signin.locked' })).toHaveLength(5);
      // Locked: even the right password is not checked now, and the code stays unused.
      expect(
        await radclient(port, SECRET, { userName: user.username, password: `${user.password}|${code}` }),
      ).toBe('Access-Reject');
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
    },
  );

  appTest(
    'a directory user: the directory password by a bind, then the code',
    async ({ startApp, expect, onTestFinished }) => {
      const tree = await createLdapTree(inject('ldap'));
      onTestFinished(() => tree.dispose());
      const t = await startApp(tree.settings);
      const port = await radiusOf(t, onTestFinished);
      expect((await t.dea(['directory', 'sync'], tree.settings)).code).toBe(0);
      expect(
        (
          await t.dea(
            ['group', 'policy', 'set', 'VPN', '--enable-ecode', 'true', '--delivery', 'Display'],
            tree.settings,
          )
        ).code,
      ).toBe(0);
      expect(
        (await t.dea(['group', 'radius', 'set', 'VPN', '--password-and-code', 'concatenated'], tree.settings))
          .code,
      ).toBe(0);
      const alice = await t.services.store.users.findByUsername(usernameOrThrow('alice'));
      const code = await codeOf(t, alice?.id ?? '');
      const { password } = DIRECTORY_PEOPLE.alice;
      expect(await radclient(port, SECRET, { userName: 'alice', password: `not-hers${code}` })).toBe(
        'Access-Reject',
      );
      expect(await radclient(port, SECRET, { userName: 'alice', password: `${password}${code}` })).toBe(
        'Access-Accept',
      );
    },
  );
});
