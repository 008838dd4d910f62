import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { describe } from 'vitest';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

type TestUser = Awaited<ReturnType<TestApp['createUser']>>;
const ON = { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 5 };

function helpers(t: TestApp) {
  const store = t.services.store;
  return {
    store,
    dea: async (...argv: string[]) => {
      const run = await t.dea(argv);
      if (run.code !== 0) throw new Error(`dea ${argv.join(' ')}: ${run.err}`);
    },
    active: (user: TestUser) => store.codes.countActive(user.id, t.clock.now()),
    switchedOff: (user: TestUser) => store.audit.list({ userId: user.id, event: 'codes.switched_off' }),
    verifies: async (user: TestUser, code: string) => {
      const outcome = await t.services.verification.verify({
        user: await store.users.findById(user.id),
        code,
        actor: 'test',
        clientAddress: null,
        now: t.clock.now(),
      });
      return outcome.valid;
    },
  };
}

describe.each(STORE_KINDS)('codes switched off on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "a group policy without codes revokes its members' unused codes, from the CLI and the console, so none verifies once codes are back on",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { dea, active, switchedOff, verifies, store } = helpers(t);
      const byCli = await t.createUser({ policy: ON });
      const code = await t.codeOnScreen(byCli);
      await dea('group', 'policy', 'set', `group-${byCli.username}`, '--enable-ecode', 'false');
      expect(await active(byCli)).toBe(0);
      expect(await switchedOff(byCli)).toMatchObject([
        {
          actor: 'cli',
          details: { cause: 'policy set', group: `group-${byCli.username}`, codeIds: [expect.any(String)] },
        },
      ]);
      await dea('group', 'policy', 'set', `group-${byCli.username}`, '--enable-ecode', 'true');
      expect(await verifies(byCli, code)).toBe(false);

      const byConsole = await t.createUser({ policy: ON });
      const other = await t.codeOnScreen(byConsole);
      const admin = await consoleAgent(t, '/dea/admin-api/admin', 'admin');
      const group = await store.groups.findByName(`group-${byConsole.username}`);
      const set = (enableECode: boolean) =>
        admin.post(`/groups/${group?.id}/policy`, {
          category: POLICY_CATEGORY_SELF_SERVICE,
          options: { enableECode },
        });
      expect((await set(false)).json()).toMatchObject({ error: 0 });
      expect(await active(byConsole)).toBe(0);
      expect(await switchedOff(byConsole)).toMatchObject([
        { actor: `console:${admin.username}`, details: { cause: 'policy set' } },
      ]);
      expect((await set(true)).json()).toMatchObject({ error: 0 });
      expect(await verifies(byConsole, other)).toBe(false);
    },
  );

  appTest(
    'a change of groups that leaves codes off revokes them (CLI, directory and SCIM alike); one that leaves them on does not',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { dea, active, switchedOff, verifies, store } = helpers(t);
      const user = await t.createUser({ policy: ON });
      const code = await t.codeOnScreen(user);
      const frozen = `frozen-${user.username}`;
      const plain = `plain-${user.username}`;
      await dea('group', 'add', '--name', plain, '--priority=-5');
      await dea('group', 'add-member', plain, user.username);
      expect(await active(user)).toBe(1);
      expect(await switchedOff(user)).toEqual([]);

      await dea('group', 'add', '--name', frozen, '--priority', '100');
      await dea('group', 'policy', 'set', frozen, '--enable-ecode', 'false');
      await dea('group', 'add-member', frozen, user.username);
      expect(await active(user)).toBe(0);
      expect(await switchedOff(user)).toMatchObject([
        { actor: 'cli', details: { cause: 'membership changed', group: frozen } },
      ]);
      await dea('group', 'remove-member', frozen, user.username);
      expect(await verifies(user, code)).toBe(false);

      // The directory, the import and SCIM change groups through the same rule: leaving the one
      // group with a policy leaves none, and codes off.
      const synced = await t.createUser({ policy: ON });
      await t.codeOnScreen(synced);
      const own = await store.groups.findByName(`group-${synced.username}`);
      if (own === undefined) throw new Error('no group');
      await t.services.groups.changeMember(own, synced.id, false, {
        door: 'local',
        actor: 'ldap-sync',
        details: { source: 'ldap' },
      });
      expect(await active(synced)).toBe(0);
      expect(await switchedOff(synced)).toMatchObject([
        { actor: 'ldap-sync', details: { cause: 'membership changed' } },
      ]);
    },
  );

  appTest(
    'disabling a user revokes their codes: enabled again, none verifies',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { dea, active, switchedOff, verifies } = helpers(t);
      const user = await t.createUser({ policy: ON });
      const code = await t.codeOnScreen(user);
      await dea('user', 'disable', user.username);
      expect(await active(user)).toBe(0);
      expect(await switchedOff(user)).toMatchObject([{ actor: 'cli', details: { cause: 'user disabled' } }]);
      await dea('user', 'enable', user.username);
      expect(await verifies(user, code)).toBe(false);
      const fresh = await t.codeOnScreen(user);
      expect(await verifies(user, fresh)).toBe(true);
    },
  );

  appTest(
    'revokes and audits each code once when several switch codes off at the same time',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { active, store } = helpers(t);
      const user = await t.createUser({ policy: ON });
      for (let i = 0; i < 3; i += 1) await t.codeOnScreen(user);
      const held = (await store.codes.listActive(user.id, t.clock.now())).map((code) => code.id).sort();
      expect(held).toHaveLength(3);
      const admin = await consoleAgent(t, '/dea/admin-api/admin', 'admin');
      const group = await store.groups.findByName(`group-${user.username}`);
      const off = () =>
        admin.post(`/groups/${group?.id}/policy`, {
          category: POLICY_CATEGORY_SELF_SERVICE,
          options: { enableECode: false },
        });
      const answers = await Promise.all([
        off(),
        off(),
        off(),
        t.dea(['group', 'policy', 'set', `group-${user.username}`, '--enable-ecode', 'false']),
        t.dea(['user', 'disable', user.username]),
      ]);
      expect(answers.map((answer) => ('code' in answer ? answer.code : answer.statusCode))).toEqual([
        200, 200, 200, 0, 0,
      ]);
      expect(await active(user)).toBe(0);
      const entries = await store.audit.list({ userId: user.id, event: 'codes.switched_off' });
      const revoked = entries.flatMap((entry) => entry.details.codeIds as string[]).sort();
      expect(revoked).toEqual(held);
    },
  );
});
