import { describe } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { RuleError } from '../rule-error.js';
import {
  auditEvents,
  BY_OPERATOR,
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

const domainOn = (store: Store, settings?: Record<string, string>) =>
  domainWith(store, openOutboxMessage, settings);

describe.each(STORE_KINDS)("the group's rules for channels people register, on %s", (kind) => {
  storeTest.override('storeKind', kind);

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
