import { CHANNEL_DELIVERY_MODE, POLICY_CATEGORY_HELP_DESK } from '@dea/contract';
import { describe } from 'vitest';
import { createServiceKey } from '../../domain/codes/service-keys.js';
import { API } from '../../testing/api-bodies.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { newId } from '../../crypto/ids.js';
import { recordPostgresQueries, recordSqliteRuns } from '../../testing/recorded-sql.js';

const BASE = '/dea/admin-api/helpdesk';
const HOUR = 3_600_000;
describe.each(STORE_KINDS)('the help desk on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "answers each route in the envelope and maps the domain's refusals: 404 for no user, 400 for a reason too short, 403 with the passkey asked again, 148 past the user's limit, 403 where the Help Desk policy leaves the role out",
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_CONSOLE_PASSKEY_FRESH_MINUTES: '5', DEA_VERIFY_MAX_FAILURES: '1' });
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 1 },
        channels: { email: 'carla@example.com' },
      });
      await t.signIn(user);
      expect((await helper.get(`/users?q=${user.username}`)).json()).toMatchObject({
        error: 0,
        result: { users: [{ id: user.id, username: user.username }] },
      });
      expect((await helper.get(`/users/${user.id}`)).json()).toMatchObject({
        error: 0,
        result: { user: { username: user.username }, channels: [{ key: 'email' }] },
      });
      expect((await helper.get('/users/no-such-user')).statusCode).toBe(404);
      expect((await helper.post(`/users/${user.id}/codes`, { reason: 'x' })).statusCode).toBe(400);

      const issued = await helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 4711, called back' });
      expect(issued.json()).toMatchObject({
        error: 0,
        result: { code: expect.stringMatching(/^[2-9A-Z]{10}$/) },
      });
      // The code the agent reads out is one the user's service verifies.
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'vpn',
        ['verify'],
        t.clock.now(),
      );
      const verified = await t.call(
        `${API}/tempPass/verify`,
        { username: user.username, code: issued.json<{ result: { code: string } }>().result.code },
        undefined,
        { authorization: `Bearer ${key}` },
      );
      expect(verified.json()).toMatchObject({ result: { valid: true } });
      // Used, it no longer counts: one more is given, and the one after it is past the limit.
      await helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 4712, again' });
      expect(
        (await helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 4712, again' })).json(),
      ).toMatchObject({
        error: 148,
      });
      expect((await helper.post(`/users/${user.id}/codes/revoke`)).json()).toMatchObject({
        result: { count: 1 },
      });
      expect(
        (await helper.post(`/users/${user.id}/codes/revoke`, { codeId: 'no-such-code' })).statusCode,
      ).toBe(404);
      expect((await helper.post(`/users/${user.id}/unlock`)).json()).toMatchObject({ result: { count: 0 } });
      expect((await helper.post(`/users/${user.id}/sessions/end`)).json()).toMatchObject({
        result: { count: 1 },
      });

      t.clock.advance(6 * 60_000);
      const stale = await helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 4713, later' });
      expect(stale.statusCode).toBe(403);
      expect(stale.json()).toMatchObject({ error: 3, result: { passkey: 'again' } });
      await helper.markPasskey();
      const group = await t.services.store.groups.findByName(`group-${user.username}`);
      await t.services.store.groups.setPolicy(group?.id ?? '', POLICY_CATEGORY_HELP_DESK, {
        issuers: ['admin'],
      });
      expect((await helper.get(`/users/${user.id}`)).statusCode).toBe(403);
    },
  );

  appTest(
    "sends a code to one of the user's channels through the page's sending: the outbox and the agent in the trail, refused to a channel still cooling and under a policy that shows codes on screen",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        channels: { email: 'ines@example.com' },
      });
      const [channel] = await t.services.store.channels.listOfUser(user.id);
      const sent = await helper.post(`/users/${user.id}/codes/send`, {
        reason: 'Ticket 77, lost phone',
        recipient: channel?.id ?? '',
      });
      expect(sent.json()).toMatchObject({ error: 0, result: { to: expect.not.stringContaining('ines@') } });
      expect(await t.services.store.outbox.list(5, user.id)).toHaveLength(1);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.sent' })).toMatchObject([
        { actor: `console:${helper.username}` },
      ]);
      // A channel its person registered an hour ago cools for a day (the default policy).
      const cooling = await t.services.store.channels.setProven({
        id: newId(),
        userId: user.id,
        key: 'personalMobile',
        address: '+491705550142',
        at: t.clock.now() - HOUR,
      });
      const unknown = await helper.post(`/users/${user.id}/codes/send`, {
        reason: 'Ticket 78, new phone',
        recipient: cooling.id,
      });
      expect(unknown.json()).toMatchObject({ error: 130 });
      expect(await t.services.store.outbox.list(5, user.id)).toHaveLength(1);

      const onScreen = await t.createUser({ channels: { email: 'jo@example.com' } });
      const [its] = await t.services.store.channels.listOfUser(onScreen.id);
      const refused = await helper.post(`/users/${onScreen.id}/codes/send`, {
        reason: 'Ticket 79, by mail',
        recipient: its?.id ?? '',
      });
      expect(refused.json<{ error: number }>().error).toBe(3);
      expect(await t.services.store.outbox.list(5, onScreen.id)).toEqual([]);
      expect(await t.services.store.audit.list({ userId: onScreen.id, event: 'code.refused' })).toMatchObject(
        [{ actor: `console:${helper.username}`, details: { reason: 'wrong-delivery-mode' } }],
      );
    },
  );

  appTest(
    'is not for auditors, nor for anyone before the passkey, nor without the token',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const user = await t.createUser();
      const auditor = await consoleAgent(t, BASE, 'auditor');
      const early = await consoleAgent(t, BASE, 'helpdesk', false);
      for (const who of [auditor, early]) {
        expect((await who.get(`/users?q=${user.username}`)).statusCode).toBe(403);
        expect((await who.get(`/users/${user.id}`)).statusCode).toBe(403);
        expect(
          (await who.post(`/users/${user.id}/codes`, { reason: 'Ticket 1, not allowed' })).statusCode,
        ).toBe(403);
        expect((await who.post(`/users/${user.id}/sessions/end`)).statusCode).toBe(403);
      }
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const withoutToken = await t.app.inject({
        method: 'POST',
        url: `${BASE}/users/${user.id}/unlock`,
        payload: {},
      });
      expect(withoutToken.statusCode).toBe(401);
      expect((await helper.get(`/users?q=${user.username}`)).statusCode).toBe(200);
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
    },
  );

  appTest(
    'one search is one statement of the store, whatever it finds: the users with their groups and policy, checked in memory',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { store } = t.services;
      const staff = newId(t.clock.now());
      await store.groups.create({ id: staff, name: 'Staff EU', priority: 0 });
      const users = [];
      for (let index = 0; index < 26; index += 1) users.push(await t.createUser());
      // 24 in the agent's scope, two of them kept from the help desk by their own group's policy;
      // two outside it. One full name is not ASCII, compared as the browser lowercases it.
      const inScope = users.slice(0, 24);
      for (const user of inScope) await store.groups.addMember(staff, user.id);
      for (const user of users.slice(0, 2)) {
        const own = await store.groups.findByName(`group-${user.username}`);
        await store.groups.setPolicy(own?.id ?? '', POLICY_CATEGORY_HELP_DESK, { issuers: ['admin'] });
      }
      await store.users.update(users[5]?.id ?? '', { fullName: 'ZOË TEST' });
      const expected = inScope
        .slice(2)
        .map((user) => user.username)
        .sort()
        .slice(0, 20);
      const helper = await consoleAgent(t, BASE, 'helpdesk', true, ['--scope', 'Staff EU']);

      const ofUsers = /\b(users|user_groups|policies|channels|groups)\b/;
      let statements: string[];
      let answer;
      if (kind === 'postgres') {
        const recorded = recordPostgresQueries();
        answer = await helper.get('/users?q=Test').finally(recorded.stop);
        statements = recorded.queries.map((query) => query.text);
      } else {
        const recorded = recordSqliteRuns();
        answer = await helper.get('/users?q=Test').finally(recorded.stop);
        statements = recorded.runs;
      }
      const found = answer.json<{ result: { users: { username: string; groups: string[] }[] } }>().result
        .users;
      expect(found.map((user) => user.username)).toEqual(expected);
      expect(found[0]?.groups).toEqual(['Staff EU', `group-${found[0]?.username}`].sort());
      const search = statements.filter((text) => ofUsers.test(text.replaceAll('"', '')));
      expect(search, search.join('\n')).toHaveLength(1);

      // A user outside the scope is found by no part of their name.
      const outside = users[25];
      expect((await helper.get(`/users?q=${outside?.username ?? ''}`)).json()).toMatchObject({
        result: { users: [] },
      });
      expect((await helper.get('/users?q=zoë')).json()).toMatchObject({
        result: { users: [{ id: users[5]?.id, fullName: 'ZOË TEST' }] },
      });
    },
    120_000,
  );
});
