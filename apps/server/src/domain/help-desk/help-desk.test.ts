import { ErrorNumber } from '@dea/contract';
import { describe } from 'vitest';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import {
  actorOf,
  BY_CHANNEL,
  callerOf,
  FORBIDDEN,
  helpDeskOf,
  MINUTE,
  MISSING,
  NO_LOG,
  refusalOf,
  T0,
} from '../../testing/help-desk-domain.js';

describe.each(STORE_KINDS)('the help desk on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a code given by the agent is issued under the user’s policy, its reason trimmed and the agent as actor in the trail, the code itself nowhere in it',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('helpdesk');
      const issued = await h.desk.issue(agent, user.id, '  Ticket 4711, called back  ', true, '192.0.2.1');
      expect(issued.code).toMatch(/^[2-9A-Z]{10}$/);
      expect(issued.expiresAt).toBe(new Date(T0 + 60 * MINUTE).toISOString());
      const [entry] = await h.entries(user.id, 'code.issued');
      expect(entry).toMatchObject({
        actor: actorOf(agent),
        clientAddress: '192.0.2.1',
        details: { reason: 'Ticket 4711, called back', via: 'help desk', channel: 'screen' },
      });
      expect(JSON.stringify(await h.entries(user.id))).not.toContain(issued.code);
      expect(await store.codes.countActive(user.id, h.now())).toBe(1);
    },
  );

  storeTest.concurrent(
    'the user’s limit on unused codes holds for the help desk: the third of three is given, the fourth refused',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('helpdesk');
      for (let index = 0; index < 3; index += 1)
        await h.desk.issue(agent, user.id, `Ticket ${index}`, true, '192.0.2.1');
      const refused = await refusalOf(h.desk.issue(agent, user.id, 'Ticket 4', true, '192.0.2.1'));
      expect(refused.errorNumber).toBe(ErrorNumber.codeStoreFull);
      expect(await store.codes.countActive(user.id, h.now())).toBe(3);
      expect(await h.entries(user.id, 'code.refused')).toMatchObject([
        { actor: actorOf(agent), details: { reason: 'store-full', channel: 'screen' } },
      ]);
    },
  );

  storeTest.concurrent(
    'ten codes asked at once by the help desk give the three the policy allows, no more',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('helpdesk');
      const answers = await Promise.allSettled(
        Array.from({ length: 10 }, () => h.desk.issue(agent, user.id, 'Ticket 4713', true, '192.0.2.1')),
      );
      expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(3);
      expect(await store.codes.countActive(user.id, h.now())).toBe(3);
      expect(await h.entries(user.id, 'code.refused')).toHaveLength(7);
    },
  );

  storeTest.concurrent(
    'a stale passkey is asked again before anything is read or written; a provider’s session is sent to sign in there again',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser({ channels: { email: 'a@example.com' } });
      const channels = await store.channels.listOfUser(user.id);
      const send = { reason: 'Ticket 1', recipient: channels[0]?.id ?? '' };
      for (const [caller, passkey] of [
        [callerOf('helpdesk'), 'again'],
        [callerOf('helpdesk', null, 'provider'), 'provider'],
      ] as const) {
        expect(await refusalOf(h.desk.issue(caller, user.id, 'Ticket 1', false, '192.0.2.1'))).toEqual({
          ...FORBIDDEN,
          result: { passkey },
        });
        expect(
          await refusalOf(h.desk.sendToChannel(caller, user.id, send, false, '192.0.2.1', NO_LOG)),
        ).toMatchObject({ result: { passkey } });
      }
      // Even a user who does not exist is not looked up.
      expect(
        await refusalOf(h.desk.issue(callerOf('admin'), 'no-such-user', 'Ticket 1', false, '192.0.2.1')),
      ).toMatchObject(FORBIDDEN);
      expect(await store.codes.countActive(user.id, h.now())).toBe(0);
      expect(h.sent).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a policy without codes gets no code from the help desk either',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser({ policy: { enableECode: false } });
      expect(
        await refusalOf(h.desk.issue(callerOf('admin'), user.id, 'Ticket 2', true, '192.0.2.1')),
      ).toMatchObject(FORBIDDEN);
      expect(await h.entries(user.id, 'code.issued')).toEqual([]);
      expect((await h.desk.user(callerOf('admin'), user.id)).offers).toEqual({
        onScreen: false,
        channels: [],
      });
    },
  );

  storeTest.concurrent(
    'a code is sent to one of the user’s own channels as the page sends it, with the agent as actor and the reason trimmed; another reference is no channel',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser({ policy: BY_CHANNEL, channels: { email: 'ines@example.com' } });
      const other = await h.addUser({ policy: BY_CHANNEL, channels: { mobile: '+491705550100' } });
      const [channel] = await store.channels.listOfUser(user.id);
      const [othersChannel] = await store.channels.listOfUser(other.user.id);
      const agent = callerOf('helpdesk');
      const answer = await h.desk.sendToChannel(
        agent,
        user.id,
        { reason: ' Ticket 77, lost phone ', recipient: channel?.id ?? '' },
        true,
        '192.0.2.1',
        NO_LOG,
      );
      expect(answer).toEqual({ to: 'i***@example.com' });
      expect(h.sent).toMatchObject([
        {
          user: { id: user.id },
          channelType: 'smtp',
          reference: channel?.id,
          clientAddress: '192.0.2.1',
          actor: actorOf(agent),
          details: { reason: 'Ticket 77, lost phone', via: 'help desk' },
        },
      ]);
      for (const recipient of ['not-hers', othersChannel?.id ?? '']) {
        const refused = await refusalOf(
          h.desk.sendToChannel(agent, user.id, { reason: 'Ticket 78', recipient }, true, '192.0.2.1', NO_LOG),
        );
        expect(refused.errorNumber, recipient).toBe(ErrorNumber.unknownChannel);
      }
      expect(h.sent).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'revoking takes back one named code or every unused one, audits the ids taken with the agent as actor, and an unknown code id is not found',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('admin');
      for (let index = 0; index < 3; index += 1)
        await h.desk.issue(agent, user.id, 'Ticket', true, '192.0.2.1');
      const [first, ...rest] = await store.codes.listActive(user.id, h.now());
      expect(await h.desk.revoke(agent, user.id, first?.id)).toBe(1);
      expect(await refusalOf(h.desk.revoke(agent, user.id, first?.id))).toMatchObject(MISSING);
      expect(await h.desk.revoke(agent, user.id, undefined)).toBe(2);
      expect(await store.codes.countActive(user.id, h.now())).toBe(0);
      expect(await h.desk.revoke(agent, user.id, undefined)).toBe(0);
      const revoked = (await h.entries(user.id, 'console.codes_revoked')).reverse();
      expect(revoked.map((entry) => [entry.actor, entry.details])).toEqual([
        [actorOf(agent), { codeIds: [first?.id] }],
        [actorOf(agent), { codeIds: expect.arrayContaining(rest.map((code) => code.id)) }],
        [actorOf(agent), { codeIds: [] }],
      ]);
    },
  );

  storeTest.concurrent(
    'ending a lock clears it and audits the agent, once: a user not locked answers 0 and writes nothing',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('helpdesk');
      await h.lock(user.id);
      expect((await h.desk.user(agent, user.id)).lock).toEqual({
        failures: 1,
        locked: true,
        lockedUntil: null,
      });
      expect(await h.desk.unlock(agent, user.id)).toBe(1);
      expect((await h.desk.user(agent, user.id)).lock).toEqual({
        failures: 0,
        locked: false,
        lockedUntil: null,
      });
      expect(await h.desk.unlock(agent, user.id)).toBe(0);
      expect(await h.entries(user.id, 'code.verify_unlocked')).toMatchObject([{ actor: actorOf(agent) }]);
    },
  );

  storeTest.concurrent(
    'ending the sessions ends every open one of the user and none of another, audited as user.signed_out by the agent',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const other = await h.addUser();
      await h.startSession(user.id);
      await h.startSession(user.id);
      await h.startSession(other.user.id);
      const agent = callerOf('helpdesk');
      expect(await h.desk.endSessions(agent, user.id)).toBe(2);
      expect(await store.sessions.listOpenOfUser(user.id)).toEqual([]);
      expect(await store.sessions.listOpenOfUser(other.user.id)).toHaveLength(1);
      expect(await h.entries(user.id, 'user.signed_out')).toMatchObject([
        { actor: actorOf(agent), details: { sessionsEnded: 2 } },
      ]);
    },
  );

  storeTest.concurrent(
    'a disabled user is given nothing (no code, no send, no end of the lock, no registration link) but what they hold is still taken back',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser({ policy: BY_CHANNEL, channels: { email: 'gone@example.com' } });
      const agent = callerOf('helpdesk');
      await h.desk.issue(agent, user.id, 'Ticket', true, '192.0.2.1');
      await h.lock(user.id);
      await h.startSession(user.id);
      await store.users.update(user.id, { disabled: true });
      const [channel] = await store.channels.listOfUser(user.id);
      let linked = 0;
      const gives = [
        h.desk.issue(agent, user.id, 'Ticket 6', true, '192.0.2.1'),
        h.desk.sendToChannel(
          agent,
          user.id,
          { reason: 'Ticket 6', recipient: channel?.id ?? '' },
          true,
          '192.0.2.1',
          NO_LOG,
        ),
        h.desk.unlock(agent, user.id),
        h.desk.registrationLink(agent, user.id, () => Promise.resolve((linked += 1))),
      ];
      for (const give of gives) expect(await refusalOf(give)).toMatchObject(FORBIDDEN);
      expect([h.sent.length, linked]).toEqual([0, 0]);
      expect((await store.verifyFailures.find(user.id))?.lockedAt).not.toBeNull();
      expect(await h.entries(user.id, 'code.issued')).toHaveLength(1);
      const view = await h.desk.user(agent, user.id);
      expect(view).toMatchObject({
        user: { disabled: true },
        mayIssue: false,
        offers: { onScreen: false, channels: [] },
      });

      expect(await h.desk.revoke(agent, user.id, undefined)).toBe(1);
      expect(await h.desk.endSessions(agent, user.id)).toBe(1);
      expect(await h.desk.forgetFor(agent, user.id, () => Promise.resolve(2))).toBe(2);
    },
  );

  storeTest.concurrent(
    'a registration link and a forgetting are made by the door’s function for this user with the agent as actor',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user } = await h.addUser();
      const agent = callerOf('helpdesk');
      expect(
        await h.desk.registrationLink(agent, user.id, (given, actor) => Promise.resolve([given.id, actor])),
      ).toEqual([user.id, actorOf(agent)]);
      const asked: [string, string][] = [];
      expect(
        await h.desk.forgetFor(agent, user.id, (given, actor) => {
          asked.push([given.id, actor]);
          return Promise.resolve(3);
        }),
      ).toBe(3);
      expect(asked).toEqual([[user.id, actorOf(agent)]]);
    },
  );
});
