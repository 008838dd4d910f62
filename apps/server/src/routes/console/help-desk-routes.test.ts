import {
  CHANNEL_DELIVERY_MODE,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_HELP_DESK,
  type ChannelKey,
} from '@dea/contract';
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
    'finds a user by name, user name or the last digits of a channel, and shows them without secrets',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const user = await t.createUser({ channels: { mobile: '+491705550177', email: 'carla@example.com' } });
      const code = await t.codeOnScreen(user);

      for (const q of [user.username, `Test ${user.username}`.toUpperCase(), '5550177']) {
        const found = await helper.get(`/users?q=${encodeURIComponent(q)}`);
        expect(found.json(), q).toMatchObject({
          error: 0,
          result: { users: [{ id: user.id, username: user.username }] },
        });
      }
      const shown = await helper.get(`/users/${user.id}`);
      expect(shown.json()).toMatchObject({
        error: 0,
        result: {
          user: { username: user.username, groups: [`group-${user.username}`] },
          policy: { enableECode: true },
          channels: [
            { key: 'email', masked: expect.not.stringContaining('carla@') },
            { key: 'mobile', masked: expect.not.stringContaining('5550177') },
          ],
          codes: [{ channel: 'screen', usesLeft: 1 }],
          lock: { failures: 0, locked: false },
          sessions: [{ createdAt: expect.any(String) }],
        },
      });
      expect(shown.body).not.toContain(code);
      const stored = await t.services.store.codes.listActive(user.id, t.clock.now());
      expect(shown.body).not.toContain(stored[0]?.codeHash);
      expect((await helper.get('/users/no-such-user')).statusCode).toBe(404);
    },
  );

  appTest(
    'issues a code for a caller with a reason, asks the passkey again when it is stale, and audits the agent',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_CONSOLE_PASSKEY_FRESH_MINUTES: '5' });
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 3 },
      });
      expect((await helper.post(`/users/${user.id}/codes`, { reason: 'x' })).statusCode).toBe(400);

      const issued = await helper.post(`/users/${user.id}/codes`, {
        reason: 'Ticket 4711, called back on the desk phone',
      });
      expect(issued.json()).toMatchObject({
        error: 0,
        result: { code: expect.stringMatching(/^[2-9A-Z]{10}$/) },
      });
      const { code } = issued.json<{ result: { code: string } }>().result;
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.issued' })).toMatchObject([
        {
          actor: `console:${helper.username}`,
          details: { reason: 'Ticket 4711, called back on the desk phone', via: 'help desk' },
        },
      ]);
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'vpn',
        ['verify'],
        t.clock.now(),
      );
      const verified = await t.call(`${API}/tempPass/verify`, { username: user.username, code }, undefined, {
        authorization: `Bearer ${key}`,
      });
      expect(verified.json()).toMatchObject({ result: { valid: true } });

      t.clock.advance(6 * 60_000);
      const stale = await helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 4712, second call' });
      expect(stale.statusCode).toBe(403);
      expect(stale.json()).toMatchObject({ error: 3, result: { passkey: 'again' } });
      await helper.markPasskey();
      // Ten at once: the user's policy allows three unused codes, and three there are.
      const burst = await Promise.all(
        Array.from({ length: 10 }, () =>
          helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 4713, many clicks' }),
        ),
      );
      expect(burst.filter((answer) => answer.json<{ error: number }>().error === 0)).toHaveLength(3);
      expect(burst.filter((answer) => answer.json<{ error: number }>().error === 148)).toHaveLength(7);
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(3);
    },
  );

  appTest(
    "sends a code to one of the user's channels as the page would, with the agent's reason",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        channels: { email: 'ines@example.com' },
      });
      const shown = (await helper.get(`/users/${user.id}`)).json<{
        result: { channels: { reference: string }[]; offers: { onScreen: boolean; channels: string[] } };
      }>();
      const reference = shown.result.channels[0]?.reference ?? '';
      expect(shown.result.offers).toEqual({ onScreen: true, channels: [reference] });
      const sent = await helper.post(`/users/${user.id}/codes/send`, {
        reason: 'Ticket 77, lost phone',
        recipient: reference,
      });
      expect(sent.json()).toMatchObject({ error: 0, result: { to: expect.not.stringContaining('ines@') } });
      expect(await t.services.store.outbox.list(5, user.id)).toHaveLength(1);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.issued' })).toMatchObject([
        {
          actor: `console:${helper.username}`,
          details: { reason: 'Ticket 77, lost phone', channel: 'smtp' },
        },
      ]);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.sent' })).toMatchObject([
        { actor: `console:${helper.username}` },
      ]);
      const unknown = await helper.post(`/users/${user.id}/codes/send`, {
        reason: 'Ticket 78, again',
        recipient: 'not-hers',
      });
      expect(unknown.json()).toMatchObject({ error: 130 });
      // A user whose policy shows codes on screen gets none by channel, from the help desk either.
      const onScreen = await t.createUser({ channels: { email: 'jo@example.com' } });
      const [channel] = await t.services.store.channels.listOfUser(onScreen.id);
      // The console does not offer it: the user's view says only the screen.
      expect((await helper.get(`/users/${onScreen.id}`)).json()).toMatchObject({
        result: { offers: { onScreen: true, channels: [] }, channels: [{ reference: channel?.id }] },
      });
      const refused = await helper.post(`/users/${onScreen.id}/codes/send`, {
        reason: 'Ticket 79, by mail',
        recipient: channel?.id ?? '',
      });
      expect(refused.json<{ error: number }>().error).not.toBe(0);
      expect(await t.services.store.outbox.list(5, onScreen.id)).toEqual([]);
      expect(await t.services.store.audit.list({ userId: onScreen.id, event: 'code.refused' })).toMatchObject(
        [{ actor: `console:${helper.username}`, details: { reason: 'wrong-delivery-mode' } }],
      );
    },
  );

  appTest(
    'offers no send to a channel that is cooling or must be proven again, and shows it as waiting with the time it may receive codes',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        channels: { email: 'kim@example.com' },
      });
      const [group] = await t.services.store.groups.listOfUser(user.id);
      await t.services.groupPolicies.setPolicy(
        group!,
        POLICY_CATEGORY_CHANNEL_REGISTRATION,
        { registrationCoolingHours: 24, reproveAfterDays: 30 },
        'cli',
      );
      const now = t.clock.now();
      // Channels the person registered and proved: 23 hours ago (cooling one hour more), 25 hours
      // ago (usable), and 31 days ago (to be proven again).
      const proven = (key: ChannelKey, address: string, hoursAgo: number) =>
        t.services.store.channels.setProven({
          id: newId(),
          userId: user.id,
          key,
          address,
          at: now - hoursAgo * HOUR,
        });
      const cooling = await proven('personalMobile', '+491705550142', 23);
      const usable = await proven('personalEmail', 'kim.private@example.org', 25);
      const stale = await proven('telephone', '+4930555014', 31 * 24);
      const email = (await t.services.store.channels.listOfUser(user.id)).find(
        (channel) => channel.key === 'email',
      );

      const shown = (await helper.get(`/users/${user.id}`)).json<{
        result: {
          offers: { channels: string[] };
          channels: { reference: string; waiting: string | null; usableFrom: string | null }[];
        };
      }>().result;
      expect([...shown.offers.channels].sort()).toEqual([email?.id, usable.id].sort());
      const byReference = new Map(shown.channels.map((channel) => [channel.reference, channel]));
      expect(byReference.get(email?.id ?? '')).toMatchObject({ waiting: null, usableFrom: null });
      expect(byReference.get(usable.id)).toMatchObject({ waiting: null, usableFrom: null });
      expect(byReference.get(cooling.id)).toMatchObject({
        waiting: 'cooling',
        usableFrom: new Date(now + HOUR).toISOString(),
      });
      expect(byReference.get(stale.id)).toMatchObject({ waiting: 'proof-expired', usableFrom: null });
      // What the view does not offer is what the send refuses.
      for (const recipient of [cooling.id, stale.id]) {
        const refused = await helper.post(`/users/${user.id}/codes/send`, {
          reason: 'Ticket 80, new phone',
          recipient,
        });
        expect(refused.json(), recipient).toMatchObject({ error: 130 });
      }
      expect(await t.services.store.outbox.list(5, user.id)).toEqual([]);
    },
  );

  appTest('takes codes back, ends a lock and the sessions', async ({ startApp, expect }) => {
    const t = await startApp({ DEA_VERIFY_MAX_FAILURES: '1' });
    const helper = await consoleAgent(t, BASE, 'admin');
    const user = await t.createUser({
      policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 5 },
    });
    await t.codeOnScreen(user);
    await t.codeOnScreen(user);
    const [first] = await t.services.store.codes.listActive(user.id, t.clock.now());
    expect((await helper.post(`/users/${user.id}/codes/revoke`, { codeId: first?.id })).json()).toMatchObject(
      { result: { count: 1 } },
    );
    expect((await helper.post(`/users/${user.id}/codes/revoke`, { codeId: first?.id })).statusCode).toBe(404);
    expect((await helper.post(`/users/${user.id}/codes/revoke`)).json()).toMatchObject({
      result: { count: 1 },
    });
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
    expect(
      await t.services.store.audit.list({ userId: user.id, event: 'console.codes_revoked' }),
    ).toHaveLength(2);

    await t.services.verification.verify({
      user: await t.services.store.users.findById(user.id),
      code: 'WRONG',
      actor: 'test',
      clientAddress: null,
      now: t.clock.now(),
    });
    expect((await helper.get(`/users/${user.id}`)).json()).toMatchObject({
      result: { lock: { locked: true, failures: 1 } },
    });
    expect((await helper.post(`/users/${user.id}/unlock`)).json()).toMatchObject({ result: { count: 1 } });
    expect(
      await t.services.store.audit.list({ userId: user.id, event: 'code.verify_unlocked' }),
    ).toMatchObject([{ actor: `console:${helper.username}` }]);
    expect((await helper.post(`/users/${user.id}/sessions/end`)).json()).toMatchObject({
      result: { count: 2 },
    });
    expect(await t.services.store.sessions.listOpenOfUser(user.id)).toEqual([]);
  });

  appTest(
    "a group's Help Desk policy governs every action on its members, for every role it leaves out",
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_VERIFY_MAX_FAILURES: '1' });
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 5 },
        channels: { email: 'exec@example.com' },
      });
      const group = await t.services.store.groups.findByName(`group-${user.username}`);
      await t.services.store.groups.setPolicy(group?.id ?? '', POLICY_CATEGORY_HELP_DESK, {
        issuers: ['admin'],
      });
      await t.codeOnScreen(user);
      await t.services.verification.verify({
        user: await t.services.store.users.findById(user.id),
        code: 'WRONG',
        actor: 'test',
        clientAddress: null,
        now: t.clock.now(),
      });
      const [channel] = await t.services.store.channels.listOfUser(user.id);
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const actions = {
        search: () => helper.get(`/users?q=${user.username}`),
        view: () => helper.get(`/users/${user.id}`),
        issue: () => helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 5, the boss called' }),
        send: () =>
          helper.post(`/users/${user.id}/codes/send`, {
            reason: 'Ticket 5, the boss called',
            recipient: channel?.id ?? '',
          }),
        revoke: () => helper.post(`/users/${user.id}/codes/revoke`),
        unlock: () => helper.post(`/users/${user.id}/unlock`),
        endSessions: () => helper.post(`/users/${user.id}/sessions/end`),
      };
      for (const [name, act] of Object.entries(actions)) {
        const answer = await act();
        if (name === 'search') expect(answer.json(), name).toMatchObject({ error: 0, result: { users: [] } });
        else expect(answer.statusCode, name).toBe(403);
      }
      // Nothing changed: the code, the lock and the session are all still there.
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
      expect((await t.services.store.verifyFailures.find(user.id))?.lockedAt).not.toBeNull();
      expect(await t.services.store.sessions.listOpenOfUser(user.id)).toHaveLength(1);
      expect(await t.services.store.outbox.list(5, user.id)).toEqual([]);
      expect(
        await t.services.store.audit.list({ userId: user.id, actor: `console:${helper.username}` }),
      ).toEqual([]);

      const boss = await consoleAgent(t, BASE, 'admin');
      expect((await boss.get(`/users?q=${user.username}`)).json()).toMatchObject({
        result: { users: [{ id: user.id }] },
      });
      expect((await boss.post(`/users/${user.id}/unlock`)).json()).toMatchObject({ result: { count: 1 } });
    },
  );

  appTest(
    'gives a disabled user nothing, but still takes back what they hold',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_VERIFY_MAX_FAILURES: '1' });
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        channels: { email: 'gone@example.com' },
      });
      await t.services.verification.verify({
        user: await t.services.store.users.findById(user.id),
        code: 'WRONG',
        actor: 'test',
        clientAddress: null,
        now: t.clock.now(),
      });
      expect((await t.dea(['user', 'disable', user.username])).code).toBe(0);
      const [channel] = await t.services.store.channels.listOfUser(user.id);

      expect((await helper.get(`/users/${user.id}`)).json()).toMatchObject({
        result: { user: { disabled: true }, mayIssue: false },
      });
      const sent = await helper.post(`/users/${user.id}/codes/send`, {
        reason: 'Ticket 6, says he is back',
        recipient: channel?.id ?? '',
      });
      expect(sent.statusCode).toBe(403);
      expect(
        (await helper.post(`/users/${user.id}/codes`, { reason: 'Ticket 6, says he is back' })).statusCode,
      ).toBe(403);
      expect((await helper.post(`/users/${user.id}/unlock`)).statusCode).toBe(403);
      expect(await t.services.store.outbox.list(5, user.id)).toEqual([]);
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.issued' })).toEqual([]);
      expect((await t.services.store.verifyFailures.find(user.id))?.lockedAt).not.toBeNull();

      expect((await helper.post(`/users/${user.id}/codes/revoke`)).json()).toMatchObject({
        result: { count: 0 },
      });
      expect((await helper.post(`/users/${user.id}/sessions/end`)).json()).toMatchObject({
        result: { count: 0 },
      });
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
