import { POLICY_CATEGORY_HELP_DESK } from '@dea/contract';
import { describe } from 'vitest';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import {
  callerOf,
  FORBIDDEN,
  helpDeskOf,
  MISSING,
  NO_LOG,
  refusalOf,
  T0,
} from '../../testing/help-desk-domain.js';

describe.each(STORE_KINDS)('who the help desk may help, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a group's Help Desk policy that leaves the agent's role out refuses every action on its members and changes nothing; a role it names may act",
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user, groupId } = await h.addUser({ channels: { email: 'exec@example.com' } });
      await store.groups.setPolicy(groupId, POLICY_CATEGORY_HELP_DESK, { issuers: ['admin'] });
      const boss = callerOf('admin');
      await h.desk.issue(boss, user.id, 'Ticket 5', true, '192.0.2.1');
      await h.lock(user.id);
      await h.startSession(user.id);
      const [channel] = await store.channels.listOfUser(user.id);
      const before = (await h.entries(user.id)).length;

      const agent = callerOf('helpdesk');
      const actions = {
        view: () => h.desk.user(agent, user.id),
        issue: () => h.desk.issue(agent, user.id, 'Ticket 5', true, '192.0.2.1'),
        send: () =>
          h.desk.sendToChannel(
            agent,
            user.id,
            { reason: 'Ticket 5', recipient: channel?.id ?? '' },
            true,
            '192.0.2.1',
            NO_LOG,
          ),
        revoke: () => h.desk.revoke(agent, user.id, undefined),
        unlock: () => h.desk.unlock(agent, user.id),
        endSessions: () => h.desk.endSessions(agent, user.id),
        link: () => h.desk.registrationLink(agent, user.id, () => Promise.resolve('link')),
        forget: () => h.desk.forgetFor(agent, user.id, () => Promise.resolve(1)),
      };
      for (const [name, act] of Object.entries(actions))
        expect(await refusalOf(act()), name).toMatchObject(FORBIDDEN);
      expect(await h.desk.search(agent, user.username)).toEqual([]);
      // Nothing changed: the code, the lock, the session, no send, no entry.
      expect(await store.codes.countActive(user.id, h.now())).toBe(1);
      expect((await store.verifyFailures.find(user.id))?.lockedAt).not.toBeNull();
      expect(await store.sessions.listOpenOfUser(user.id)).toHaveLength(1);
      expect(h.sent).toEqual([]);
      expect(await h.entries(user.id)).toHaveLength(before);

      expect((await h.desk.search(boss, user.username)).map((found) => found.id)).toEqual([user.id]);
      expect(await h.desk.unlock(boss, user.id)).toBe(1);
    },
  );

  storeTest.concurrent(
    'a scoped agent is answered "not found" for a user outside its groups, for every action, and finds only its groups’ members',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const inside = await h.addUser({ fullName: 'Scope Member' });
      const outside = await h.addUser({ fullName: 'Scope Stranger' });
      await h.startSession(outside.user.id);
      const agent = callerOf('helpdesk', [inside.group]);
      const actions = [
        () => h.desk.user(agent, outside.user.id),
        () => h.desk.issue(agent, outside.user.id, 'Ticket 9', true, '192.0.2.1'),
        () => h.desk.revoke(agent, outside.user.id, undefined),
        () => h.desk.unlock(agent, outside.user.id),
        () => h.desk.endSessions(agent, outside.user.id),
        () => h.desk.forgetFor(agent, outside.user.id, () => Promise.resolve(1)),
      ];
      for (const act of actions) expect(await refusalOf(act())).toMatchObject(MISSING);
      // The same answer as for a user who does not exist at all.
      expect(await refusalOf(h.desk.user(agent, 'no-such-user'))).toMatchObject(MISSING);
      expect(await store.sessions.listOpenOfUser(outside.user.id)).toHaveLength(1);
      expect((await h.desk.search(agent, 'Scope')).map((found) => found.id)).toEqual([inside.user.id]);
      expect((await h.desk.user(agent, inside.user.id)).user.id).toBe(inside.user.id);
      // An administrator's scope is never limited.
      expect((await h.desk.search(callerOf('admin'), 'Scope')).length).toBe(2);
    },
  );

  storeTest.concurrent(
    'search finds a user by a part of the user name in any spelling, of the full name in any case, or by three or more last digits of a channel',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser({
        username: 'carla.example',
        fullName: 'Zoë Carla Example',
        channels: { mobile: '+491705550177', email: 'carla@example.com' },
      });
      await h.addUser({
        username: 'someone',
        fullName: 'Someone Else',
        channels: { mobile: '+491705550200' },
      });
      const agent = callerOf('helpdesk');
      const found = async (query: string) => (await h.desk.search(agent, query)).map((one) => one.id);
      for (const query of ['carla.ex', 'ＣＡＲＬＡ.EXAMPLE', '  ZOË CARLA ', 'carla exa', '177', '5550177'])
        expect(await found(query), query).toEqual([user.id]);
      // Two digits are no address ending; an address is not searched as text.
      expect(await found('77')).toEqual([]);
      expect(await found('carla@example')).toEqual([]);
      expect(await found('else')).not.toContain(user.id);
      expect(await h.desk.search(agent, '5550177')).toEqual([
        {
          id: user.id,
          username: user.username,
          fullName: 'Zoë Carla Example',
          source: 'local',
          disabled: false,
          groups: [`group-${user.username}`],
        },
      ]);
    },
  );

  storeTest.concurrent('search answers at most 20 users', async ({ testStore: { store }, expect }) => {
    const h = helpDeskOf(store);
    for (let index = 0; index < 21; index += 1) await h.addUser({ fullName: `Crowd ${index}` });
    expect(await h.desk.search(callerOf('helpdesk'), 'crowd')).toHaveLength(20);
  });

  storeTest.concurrent(
    "a user's view shows policy, masked channels, unused codes, lock, open sessions and the trail, without a code or an address",
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user, group } = await h.addUser({
        channels: { mobile: '+491705550177', email: 'carla@example.com' },
      });
      const agent = callerOf('helpdesk');
      const { code } = await h.desk.issue(agent, user.id, 'Ticket 1', true, '192.0.2.1');
      await h.startSession(user.id);
      h.advance(60_000);
      const view = await h.desk.user(agent, user.id);
      expect(view).toMatchObject({
        user: { id: user.id, username: user.username, groups: [group], disabled: false },
        mayIssue: true,
        offers: { onScreen: true, channels: [] },
        policy: {
          enableECode: true,
          emergencyCodeDelivery: 'Display',
          codeValidityMinutes: 60,
          maxUnusedCodes: 3,
        },
        codes: [
          {
            channel: 'screen',
            createdAt: new Date(T0).toISOString(),
            expiresAt: new Date(T0 + 3_600_000).toISOString(),
            usesLeft: 1,
          },
        ],
        lock: { failures: 0, locked: false, lockedUntil: null },
        sessions: [{ createdAt: new Date(T0).toISOString(), lastSeenAt: new Date(T0).toISOString() }],
        audit: [{ event: 'code.issued', at: new Date(T0).toISOString() }],
      });
      expect(view.channels.map((channel) => [channel.key, channel.waiting])).toEqual([
        ['email', null],
        ['mobile', null],
      ]);
      const shown = JSON.stringify(view);
      for (const secret of [code, 'carla@', '5550177']) expect(shown).not.toContain(secret);
    },
  );

  storeTest.concurrent(
    'a lock that has run out is shown as no lock, one still running with its end',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('helpdesk');
      await store.verifyFailures.record(user.id, T0, { lockAfter: 1, lockMs: 60_000 });
      h.advance(59_999);
      expect((await h.desk.user(agent, user.id)).lock).toEqual({
        failures: 1,
        locked: true,
        lockedUntil: new Date(T0 + 60_000).toISOString(),
      });
      h.advance(1);
      expect((await h.desk.user(agent, user.id)).lock).toEqual({
        failures: 1,
        locked: false,
        lockedUntil: null,
      });
    },
  );

  storeTest.concurrent(
    'codes that expired or were used are not shown, nor taken back',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('helpdesk');
      await h.desk.issue(agent, user.id, 'Ticket 1', true, '192.0.2.1');
      h.advance(3_600_000);
      expect((await h.desk.user(agent, user.id)).codes).toEqual([]);
      expect(await h.desk.revoke(agent, user.id, undefined)).toBe(0);
      const [issued] = await h.entries(user.id, 'code.issued');
      const codeId = String(issued?.details?.codeId);
      expect(await refusalOf(h.desk.revoke(agent, user.id, codeId))).toMatchObject(MISSING);
    },
  );
});
