import {
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_SELF_SERVICE,
  type ChannelKey,
} from '@dea/contract';
import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { composeDomain } from '../../composition.js';
import { newId, randomToken } from '../../crypto/ids.js';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { Metrics } from '../../observability/metrics.js';
import { ensureBuiltInContent } from '../../seed/built-in-content.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS, TEST_STORE_KEYS } from '../../testing/stores.js';
import { testClock, testConfig } from '../../testing/test-app.js';
import type { Store, User } from '../../store/store.js';
import { RequestTurns } from '../bulkheads.js';
import { DomainError } from '../errors.js';
import { availableChannels } from '../page/page-answers.js';
import { RuleError } from '../rule-error.js';
import { sendCode } from './send-code.js';

const HOUR = 3_600_000;
const CLIENT = '198.51.100.7';
const CHANNEL_POLICY = { enableECode: true, emergencyCodeDelivery: 'Channel' };
const BY_OPERATOR = { door: 'local', actor: 'cli' } as const;

interface Person {
  id: string;
  username: string;
}

/**
 * The domain over the test's store, composed as the server composes it (composition.ts), on a
 * clock the test moves; `createUser` makes a person in a group of their own with this Self
 * Service policy and these channels from their source.
 */
async function domainOn(store: Store, settings: Record<string, string> = {}) {
  await ensureBuiltInContent(store);
  const clock = testClock();
  const services = composeDomain({
    config: testConfig(settings),
    store,
    keys: TEST_STORE_KEYS,
    now: clock.now,
    log: { warn: () => undefined, info: () => undefined },
    metrics: new Metrics(),
    auditExport: undefined,
    requestTurns: new RequestTurns(),
    decoyPasswordHash: () => Promise.resolve(''),
  });
  async function createUser(
    options: { policy?: Record<string, unknown>; channels?: Partial<Record<ChannelKey, string>> } = {},
  ): Promise<Person> {
    const now = clock.now();
    const person = { id: newId(now), username: usernameOrThrow(`user-${randomToken(6)}`) };
    await store.users.create({
      id: person.id,
      username: person.username,
      passwordHash: 'hash',
      fullName: `Test ${person.username}`,
      locale: 'en',
      createdAt: now,
    });
    const groupId = newId(now);
    await store.groups.create({ id: groupId, name: `group-${person.username}`, priority: 0 });
    await store.groups.setPolicy(
      groupId,
      POLICY_CATEGORY_SELF_SERVICE,
      options.policy ?? { enableECode: true, emergencyCodeDelivery: 'Display' },
    );
    await store.groups.addMember(groupId, person.id);
    for (const [key, address] of Object.entries(options.channels ?? {}))
      await store.channels.set({
        id: randomToken(16),
        userId: person.id,
        key: key as ChannelKey,
        address,
        createdAt: now,
      });
    return person;
  }
  return { services, clock, createUser };
}

type Domain = Awaited<ReturnType<typeof domainOn>>;

/** The messages the outbox holds for a user, opened, oldest first. */
async function outbox(
  t: Domain,
  userId: string,
): Promise<{ recipient: string; subject: string; text: string }[]> {
  const messages = await t.services.store.outbox.list(1000, userId);
  return messages.reverse().map((message) => openOutboxMessage([t.services.keys.seal], message));
}

/** The proof code last sent to an address. */
async function proofCodeSentTo(t: Domain, userId: string, recipient: string): Promise<string> {
  const sent = (await outbox(t, userId)).filter((message) => message.recipient === recipient).at(-1);
  const code = /confirmation code is (\d{8})/.exec(sent?.text ?? '')?.[1];
  if (code === undefined) throw new Error(`no proof code sent to ${recipient}`);
  return code;
}

async function userOf(t: Domain, user: Person): Promise<User> {
  const found = await t.services.store.users.findById(user.id);
  if (found === undefined) throw new Error('no such user');
  return found;
}

async function setRegistrationPolicy(
  t: Domain,
  user: Person,
  options: Record<string, unknown>,
): Promise<void> {
  const group = (await t.services.store.groups.listOfUser(user.id))[0]!;
  await t.services.groupPolicies.setPolicy(group, POLICY_CATEGORY_CHANNEL_REGISTRATION, options, 'cli');
}

const request = (user: User) => ({ user, actor: user.id, clientAddress: CLIENT, origin: 'owner' as const });

async function start(t: Domain, user: User, key: ChannelKey, address: string) {
  return t.services.channelProofs.start({ ...request(user), key, address, origin: 'owner' });
}

async function auditEvents(t: Domain, userId: string, event: string) {
  return (await t.services.store.audit.list({ userId, event, limit: 1000 })).filter(
    (entry) => entry.event === event,
  );
}

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

  storeTest.concurrent(
    "the group's policy says which types, how many, and a source's channel stays read-only",
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({
        channels: { mobile: '+491705550100', personalEmail: 'src@example.com' },
      });
      const user = await userOf(t, person);
      await setRegistrationPolicy(t, person, {
        registrationChannelTypes: ['smtp', 'TWITTER'],
        registrationMaxChannels: 1,
      });
      const refused = (promise: Promise<unknown>) =>
        expect(promise).rejects.toMatchObject({ textKey: 'error.channelNotRegistrable' });
      await refused(start(t, user, 'personalMobile', '+491705550111'));
      await refused(start(t, user, 'personalEmail', 'fa.other@example.org'));
      const { proofId } = await start(t, user, 'email', 'fa@example.org');
      await t.services.channelProofs.prove({
        ...request(user),
        proofId,
        code: await proofCodeSentTo(t, user.id, 'fa@example.org'),
      });
      await refused(start(t, user, 'personalTwitter', '@fa_private'));
      // Replacing the one it has is no channel more.
      await start(t, user, 'email', 'fa.new@example.org');
      await refused(t.services.channelProofs.remove({ ...request(user), key: 'mobile' }));
      expect(await t.services.channelProofs.remove({ ...request(user), key: 'email' })).toBe(true);
      expect(
        (await auditEvents(t, user.id, 'channel.proof_refused')).map((entry) => entry.details?.reason),
      ).toEqual(expect.arrayContaining(['type-not-allowed', 'owned-by-source', 'too-many']));
      await expect(setRegistrationPolicy(t, person, { registrationCoolingHours: -1 })).rejects.toBeInstanceOf(
        RuleError,
      );
      await expect(setRegistrationPolicy(t, person, { registrationChannelTypes: ['fax'] })).rejects.toThrow(
        /registrationChannelTypes must be a list of sms, smtp, TELEPHONE, TWITTER/,
      );
      await expect(setRegistrationPolicy(t, person, { enableECode: true })).rejects.toThrow(
        /enableECode is not a channel registration option/,
      );
    },
  );

  storeTest.concurrent(
    "the group's maximum and types hold when the proofs end: three started under a maximum of one give one channel, proven one after another or at once",
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const refusedWith = (reason: string) =>
        auditEvents(t, user.id, 'channel.proof_refused').then((entries) =>
          entries.filter((entry) => entry.details?.reason === reason),
        );
      const person = await t.createUser();
      const user = await userOf(t, person);
      await setRegistrationPolicy(t, person, { registrationMaxChannels: 1 });
      const keys = ['personalEmail', 'email', 'personalMobile'] as const;
      const addresses = ['ha@example.org', 'ha.work@example.org', '+491705550155'];
      const proofs = [];
      for (const [index, key] of keys.entries()) {
        const { proofId } = await start(t, user, key, addresses[index]!);
        proofs.push({ proofId, code: await proofCodeSentTo(t, user.id, addresses[index]!) });
      }
      const outcomes = await Promise.allSettled(
        proofs.map((proof) => t.services.channelProofs.prove({ ...request(user), ...proof })),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected')
          expect(outcome.reason).toMatchObject({ textKey: 'error.channelNotRegistrable' });
      expect(await t.services.store.channels.listOfUser(user.id)).toHaveLength(1);
      expect(await refusedWith('too-many')).toHaveLength(2);
      expect(await t.services.store.channelProofs.listOfUser(user.id)).toEqual([]);

      // One after another, the same: the second is refused as it ends.
      const other = await t.createUser();
      const second = await userOf(t, other);
      await setRegistrationPolicy(t, other, { registrationMaxChannels: 1 });
      const started = [];
      for (const address of ['jo@example.org', 'jo.work@example.org'])
        started.push({
          key: address.startsWith('jo@') ? ('personalEmail' as const) : ('email' as const),
          ...(await start(t, second, address.startsWith('jo@') ? 'personalEmail' : 'email', address)),
          address,
        });
      for (const proof of started) {
        const code = await proofCodeSentTo(t, second.id, proof.address);
        const proving = t.services.channelProofs.prove({ ...request(second), proofId: proof.proofId, code });
        if (proof === started[0]) await proving;
        else await expect(proving).rejects.toMatchObject({ textKey: 'error.channelNotRegistrable' });
      }
      expect(await t.services.store.channels.listOfUser(second.id)).toHaveLength(1);

      // A type the group stopped allowing while the proof was under way.
      const third = await t.createUser();
      const typed = await userOf(t, third);
      const { proofId } = await start(t, typed, 'personalMobile', '+49 170 5550144');
      await setRegistrationPolicy(t, third, { registrationChannelTypes: ['smtp'] });
      await expect(
        t.services.channelProofs.prove({
          ...request(typed),
          proofId,
          code: await proofCodeSentTo(t, typed.id, '+491705550144'),
        }),
      ).rejects.toMatchObject({ textKey: 'error.channelNotRegistrable' });
      expect(await t.services.store.channels.listOfUser(typed.id)).toEqual([]);
      expect(
        (await auditEvents(t, typed.id, 'channel.proof_refused')).map((entry) => entry.details?.reason),
      ).toEqual(['type-not-allowed']);
    },
  );

  storeTest.concurrent(
    'proof codes are sent within the send limits of emergency codes: of ten at once under a limit of three, three go',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store, { DEA_SEND_LIMIT_PER_USER: '3' });
      const user = await userOf(t, await t.createUser());
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) => start(t, user, 'personalEmail', `gi${index}@example.org`)),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ errorNumber: 140 });
      expect(
        (await auditEvents(t, user.id, 'channel.proof_refused')).filter(
          (entry) => entry.details?.reason === 'rate-limit',
        ),
      ).toHaveLength(7);
    },
  );

  storeTest.concurrent(
    'the help desk adds no channel to a disabled user: refused before a code goes, and at the proof when disabled meanwhile',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'dora@example.com' } });
      const agent = { actor: 'console:agent', clientAddress: CLIENT, origin: 'console' as const };
      await t.services.people.disable(BY_OPERATOR, person.id);
      const refused = await t.services.channelProofs
        .start({ ...agent, user: await userOf(t, person), key: 'mobile', address: '+49 170 5550199' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RuleError);
      expect((refused as Error).message).toMatch(/disabled/);
      expect((await outbox(t, person.id)).filter((message) => message.recipient === '+491705550199')).toEqual(
        [],
      );

      // Started while enabled, proven after the user was disabled: nothing is written.
      await t.services.people.enable(BY_OPERATOR, person.id);
      const started = await t.services.channelProofs.start({
        ...agent,
        user: await userOf(t, person),
        key: 'mobile',
        address: '+49 170 5550199',
      });
      const code = await proofCodeSentTo(t, person.id, '+491705550199');
      await t.services.people.disable(BY_OPERATOR, person.id);
      const late = await t.services.channelProofs
        .prove({ ...agent, user: await userOf(t, person), proofId: started.proofId, code })
        .catch((error: unknown) => error);
      expect(late).toBeInstanceOf(RuleError);
      expect((await t.services.store.channels.listOfUser(person.id)).map((channel) => channel.key)).toEqual([
        'email',
      ]);
      expect(
        (await auditEvents(t, person.id, 'channel.proof_refused')).map((entry) => entry.details?.reason),
      ).toEqual(['user-disabled', 'user-disabled']);
    },
  );
});
