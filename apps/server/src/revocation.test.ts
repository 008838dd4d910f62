import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { describe, expect } from 'vitest';
import { runCli } from './cli/run.js';
import { createServiceKey } from './domain/codes/service-keys.js';
import { API, bodies } from './testing/api-bodies.js';
import { DOOR_STORE_KINDS } from './testing/stores.js';
import { appTest } from './testing/fixtures.js';
import type { TestApp, TestUser } from './testing/test-app.js';

/**
 * What an operator's change ends: sessions after a new password, a sign-out or a disable; codes
 * after the user's policy stops allowing them; a recipient reference after its channel goes or
 * changes. The CLI runs on the very store the app serves from.
 */
describe.each(DOOR_STORE_KINDS)('changes that end sessions, codes and references on %s', (kind) => {
  appTest.override('storeKind', kind);

  async function dea(t: TestApp, ...argv: string[]): Promise<{ code: number; out: string }> {
    const out: string[] = [];
    const code = await runCli(argv, {
      env: {
        DEA_SECRET: t.services.config.secret,
        DEA_DATA_DIR: t.testStore.dataDir,
        DATABASE_URL: t.testStore.databaseUrl,
        DEA_PASSWORD_HASH_COST: '10',
      },
      out: (line) => out.push(line),
      err: (line) => out.push(line),
      readStdin: () => Promise.resolve('a brand new password'),
    });
    return { code, out: out.join('\n') };
  }
  const userinfoStatus = async (t: TestApp, session: Awaited<ReturnType<TestApp['signIn']>>) =>
    (await t.call(`${API}/userinfo`, {}, session)).statusCode;

  appTest.for<[string, (user: TestUser) => string[]]>([
    ['user set-password', (user: TestUser) => ['user', 'set-password', user.username, '--password-stdin']],
    ['user sign-out', (user: TestUser) => ['user', 'sign-out', user.username]],
    ['user disable', (user: TestUser) => ['user', 'disable', user.username]],
  ])('%s ends every session of the user at once, and only theirs', async ([, argv], { startApp }) => {
    const t = await startApp();
    const user = await t.createUser();
    const other = await t.createUser();
    const [first, second, others] = [await t.signIn(user), await t.signIn(user), await t.signIn(other)];
    expect(await userinfoStatus(t, first)).toBe(200);
    const result = await dea(t, ...argv(user));
    expect(result.code).toBe(0);
    expect(result.out).toContain('2 sessions ended');
    expect(await userinfoStatus(t, first)).toBe(401);
    expect(await userinfoStatus(t, second)).toBe(401);
    expect(await userinfoStatus(t, others)).toBe(200);
  });

  appTest(
    'refuses at verification a code issued before the user’s policy stopped allowing codes',
    async ({ startApp }) => {
      const t = await startApp();
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'vpn',
        ['verify'],
        t.clock.now(),
      );
      const user = await t.createUser();
      const session = await t.signIn(user);
      const created = await t.call(`${API}/tempPass/create`, bodies.create(user.id), session);
      const code =
        created.json<{ result: { rows: { password: string }[] } }>().result.rows[0]?.password ?? '';
      await t.services.store.groups.create({ id: 'no-codes', name: 'No codes', priority: 100 });
      await t.services.store.groups.setPolicy('no-codes', POLICY_CATEGORY_SELF_SERVICE, {
        enableECode: false,
      });
      expect((await dea(t, 'group', 'add-member', 'No codes', user.username)).code).toBe(0);
      const verify = () =>
        t.call(`${API}/tempPass/verify`, { userId: user.id, code }, undefined, {
          authorization: `Bearer ${key}`,
        });
      expect((await verify()).json()).toMatchObject({ error: 0, result: { valid: false } });
      expect(
        await t.services.store.audit.list({ userId: user.id, event: 'code.verify_failed' }),
      ).toMatchObject([{ details: { reason: 'codes-disabled' } }]);
      // Back in a group that allows codes, the unused code is still there: the refusal consumed nothing.
      expect((await dea(t, 'group', 'remove-member', 'No codes', user.username)).code).toBe(0);
      expect((await verify()).json()).toMatchObject({ result: { valid: true } });
    },
  );

  appTest(
    'makes the reference of a removed or readdressed channel fail with error 130',
    async ({ startApp }) => {
      const t = await startApp();
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Channel' },
        channels: { mobile: '+4917012345678', email: 'old@example.com' },
      });
      const session = await t.signIn(user);
      const map = (
        await t.call(`${API}/user/queryAvailableChannels`, bodies.channels(user.id), session)
      ).json<{
        result: Record<string, string>;
      }>().result;
      const reference = (key: string) => map[key]?.split(',')[1] ?? '';
      const send = (type: 'sms' | 'smtp', ref: string) =>
        t.call(`${API}/tempPass/createAndSend`, bodies.createAndSend(user.id, type, ref), session);

      expect((await dea(t, 'channel', 'remove', user.username, 'mobile')).code).toBe(0);
      expect((await send('sms', reference('mobile'))).json()).toMatchObject({ error: 130 });
      expect((await dea(t, 'channel', 'set', user.username, 'email', 'new@example.com')).code).toBe(0);
      expect((await send('smtp', reference('email'))).json()).toMatchObject({ error: 130 });
      expect(await t.services.store.outbox.list(10, user.id)).toHaveLength(0);
    },
  );
});
