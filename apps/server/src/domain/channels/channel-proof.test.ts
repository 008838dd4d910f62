import { describe } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DomainError } from '../errors.js';
import { availableChannels } from '../page/page-answers.js';
import {
  auditEvents,
  CHANNEL_POLICY,
  CLIENT,
  domainOn as domainWith,
  outbox,
  proofCodeSentTo,
  request,
  setRegistrationPolicy,
  start,
  userOf,
} from '../../testing/channel-proof-domain.js';
import { sendCode } from './send-code.js';

const HOUR = 3_600_000;

const domainOn = (store: Store, settings?: Record<string, string>) =>
  domainWith(store, openOutboxMessage, settings);

describe.each(STORE_KINDS)('channels people register, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a new address is no channel until the code sent to it is proven; then the other channels are told with a link that undoes it',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'ann@example.com' } });
      const user = await userOf(t, person);
      const started = await start(t, user, 'personalMobile', '+49 170 5550123');
      expect(await t.services.store.channels.listOfUser(user.id)).toHaveLength(1);
      expect(await t.services.channelProofs.list(user)).toContainEqual(
        expect.objectContaining({ state: 'pending', key: 'personalMobile', proofId: started.proofId }),
      );
      const code = await proofCodeSentTo(t, user.id, '+491705550123');

      const view = await t.services.channelProofs.prove({ ...request(user), proofId: started.proofId, code });
      expect(view).toMatchObject({
        state: 'registered',
        key: 'personalMobile',
        origin: 'owner',
        trust: { usable: false, reason: 'cooling', until: t.clock.now() + 24 * HOUR },
      });
      const channels = await t.services.store.channels.listOfUser(user.id);
      expect(channels.map((channel) => [channel.key, channel.origin])).toEqual([
        ['email', 'source'],
        ['personalMobile', 'owner'],
      ]);
      const notice = (await outbox(t, user.id)).find((message) => message.recipient === 'ann@example.com');
      expect(notice?.subject).toBe('A new channel was added to your account');
      expect(notice?.text).not.toContain(code);
      const undo = /#undo=([\w-]+)/.exec(notice?.text ?? '')?.[1];
      expect(notice?.text).toContain('http://localhost:8080/dea/channels/#undo=');
      expect(await auditEvents(t, user.id, 'channel.registered')).toHaveLength(1);

      // "This was not me": the channel goes, the person's sessions end, their unused codes are taken
      // back, the help desk's event is written; once.
      await t.services.sessions.start(person.id, t.clock.now());
      const codeId = `undo-${kind}-${t.clock.now()}`;
      await t.services.store.codes.issue(
        {
          id: codeId,
          userId: user.id,
          codeHash: 'a-code-sent-meanwhile',
          createdAt: t.clock.now(),
          expiresAt: t.clock.now() + HOUR,
          uses: 1,
          channelType: 'sms',
        },
        5,
        { event: 'code.issued', userId: user.id },
      );
      expect(
        (await t.services.store.codes.listActive(user.id, t.clock.now())).map((code) => code.id),
      ).toEqual([codeId]);
      const [first, second] = await Promise.allSettled([
        t.services.channelProofs.undo(undo!, CLIENT),
        t.services.channelProofs.undo(undo!, CLIENT),
      ]);
      const outcomes = [first, second].map((outcome) => outcome.status);
      expect(outcomes.sort()).toEqual(['fulfilled', 'rejected']);
      expect((await t.services.store.channels.listOfUser(user.id)).map((channel) => channel.key)).toEqual([
        'email',
      ]);
      expect(await t.services.store.sessions.listOpenOfUser(user.id)).toEqual([]);
      const undone = await auditEvents(t, user.id, 'channel.registration_undone');
      expect(undone).toHaveLength(1);
      expect(undone[0]?.details).toMatchObject({
        key: 'personalMobile',
        removed: true,
        sessionsEnded: 1,
        codesRevoked: [codeId],
      });
      expect(await t.services.store.codes.listActive(user.id, t.clock.now())).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a registered channel receives emergency codes only after the cooling-off time, and not once its proof is too old',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ policy: CHANNEL_POLICY });
      const user = await userOf(t, person);
      await setRegistrationPolicy(t, person, { registrationCoolingHours: 2, reproveAfterDays: 30 });
      const { proofId } = await start(t, user, 'personalEmail', 'ann.private@example.org');
      await t.services.channelProofs.prove({
        ...request(user),
        proofId,
        code: await proofCodeSentTo(t, user.id, 'ann.private@example.org'),
      });
      const available = () =>
        availableChannels(t.services, user, { clientAddress: CLIENT, deviceCookie: undefined });
      const reference = (await t.services.store.channels.listOfUser(user.id))[0]!.id;
      const send = () =>
        sendCode(t.services, {
          user,
          channelType: 'smtp',
          reference,
          locale: undefined,
          clientAddress: CLIENT,
          log: { warn: () => undefined },
        }).then(
          () => 0,
          (error: unknown) => (error as DomainError).errorNumber,
        );

      expect(await available()).toEqual({});
      expect(await send()).toBe(130);
      expect((await auditEvents(t, user.id, 'code.send_refused'))[0]?.details).toMatchObject({
        reason: 'cooling',
      });

      t.clock.advance(2 * HOUR);
      expect(Object.keys(await available())).toEqual(['personalEmail']);
      expect(await send()).toBe(0);

      t.clock.advance(30 * 24 * HOUR);
      expect(await available()).toEqual({});
      expect(await send()).toBe(130);
      expect(await t.services.channelProofs.list(user)).toContainEqual(
        expect.objectContaining({
          key: 'personalEmail',
          trust: expect.objectContaining({ reason: 'proof-expired' }),
        }),
      );

      // Proven again, the same address keeps its reference and registration: no new cooling-off, no notice.
      const again = await start(t, user, 'personalEmail', 'ann.private@example.org');
      await t.services.channelProofs.prove({
        ...request(user),
        proofId: again.proofId,
        code: await proofCodeSentTo(t, user.id, 'ann.private@example.org'),
      });
      expect(Object.keys(await available())).toEqual(['personalEmail']);
      expect(
        (await auditEvents(t, user.id, 'channel.registered')).map((entry) => entry.details?.reproof),
      ).toEqual(expect.arrayContaining([true, false]));
    },
  );

  storeTest.concurrent(
    'with registrationCoolingHours 0 a proven channel may receive codes at once',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ policy: CHANNEL_POLICY });
      const user = await userOf(t, person);
      await setRegistrationPolicy(t, person, { registrationCoolingHours: 0 });
      const { proofId } = await start(t, user, 'personalEmail', 'bo@example.org');
      const view = await t.services.channelProofs.prove({
        ...request(user),
        proofId,
        code: await proofCodeSentTo(t, user.id, 'bo@example.org'),
      });
      expect(view).toMatchObject({ trust: { usable: true } });
    },
  );

  storeTest.concurrent(
    'wrong codes take the tries one at a time: of twenty at once, five are checked and the right code is refused after',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store, { DEA_CHANNEL_PROOF_TRIES: '5' });
      const user = await userOf(t, await t.createUser());
      const { proofId } = await start(t, user, 'personalEmail', 'cy@example.org');
      const code = await proofCodeSentTo(t, user.id, 'cy@example.org');
      const wrong = code === '00000000' ? '11111111' : '00000000';
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, () =>
          t.services.channelProofs.prove({ ...request(user), proofId, code: wrong }),
        ),
      );
      expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
      const reasons = (await auditEvents(t, user.id, 'channel.proof_refused')).map(
        (entry) => entry.details?.reason,
      );
      expect(reasons.filter((reason) => reason === 'wrong-code')).toHaveLength(5);
      expect(reasons.filter((reason) => reason === 'no-tries')).toHaveLength(15);
      await expect(
        t.services.channelProofs.prove({ ...request(user), proofId, code }),
      ).rejects.toBeInstanceOf(DomainError);
      expect(await t.services.store.channels.listOfUser(user.id)).toEqual([]);
    },
  );

  storeTest.concurrent(
    'of ten right answers at once, one registers the channel',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store, { DEA_CHANNEL_PROOF_TRIES: '20' });
      const user = await userOf(t, await t.createUser({ channels: { email: 'di@example.com' } }));
      const { proofId } = await start(t, user, 'personalEmail', 'di@example.org');
      const code = await proofCodeSentTo(t, user.id, 'di@example.org');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () => t.services.channelProofs.prove({ ...request(user), proofId, code })),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(await auditEvents(t, user.id, 'channel.registered')).toHaveLength(1);
      expect(
        (await outbox(t, user.id)).filter((message) => message.recipient === 'di@example.com'),
      ).toHaveLength(1);
    },
  );

  storeTest.concurrent('a code that has expired proves nothing', async ({ testStore: { store }, expect }) => {
    const t = await domainOn(store, { DEA_CHANNEL_PROOF_MINUTES: '15' });
    const user = await userOf(t, await t.createUser());
    const { proofId } = await start(t, user, 'personalEmail', 'ed@example.org');
    const code = await proofCodeSentTo(t, user.id, 'ed@example.org');
    t.clock.advance(15 * 60_000);
    await expect(t.services.channelProofs.prove({ ...request(user), proofId, code })).rejects.toMatchObject({
      textKey: 'error.channelProofInvalid',
    });
    expect((await auditEvents(t, user.id, 'channel.proof_refused'))[0]?.details).toMatchObject({
      reason: 'expired',
    });
  });
});
