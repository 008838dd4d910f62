import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow, type ChannelKey, type SendType } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { DeliveryProvider } from '../../delivery/delivery.js';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS, TEST_STORE_KEYS } from '../../testing/stores.js';
import { composedDomain } from '../../testing/composed-domain.js';
import { sendCode, type SendRequest } from './send-code.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const MINUTE = 60_000;
const CLIENT = '198.51.100.7';
const BY_CHANNEL = { enableECode: true, emergencyCodeDelivery: 'Channel', maxUnusedCodes: 20 };
const CHANNELS: Partial<Record<ChannelKey, string>> = {
  mobile: '+49 170 5550112',
  email: 'chris.channel@example.com',
  personalTelephone: '+49 89 5550178',
  twitter: '@chris_channel',
};

/**
 * The domain over the test's store, composed as the server composes it (composition.ts), on a
 * clock the test moves, with the built-in languages; codes go to the outbox, whose messages `outbox` opens.
 */
async function sendingOn(store: Store, settings: Record<string, string> = {}) {
  const { services, clock } = await composedDomain(store, settings, T0);
  const warnings: Record<string, unknown>[] = [];

  /** A person in a group of their own with this Self Service policy and these channels. */
  async function person(
    options: { policy?: Record<string, unknown>; channels?: Partial<Record<ChannelKey, string>> } = {},
  ): Promise<{ user: User; refs: Partial<Record<ChannelKey, string>> }> {
    const id = newId(clock.now());
    await store.users.create({
      id,
      username: usernameOrThrow(`sender-${id.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Chris Channel',
      locale: 'en',
      createdAt: clock.now(),
    });
    const groupId = newId(clock.now());
    await store.groups.create({ id: groupId, name: `group-${id}`, priority: 0 });
    await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, options.policy ?? BY_CHANNEL);
    await store.groups.addMember(groupId, id);
    const refs: Partial<Record<ChannelKey, string>> = {};
    for (const [key, address] of Object.entries(options.channels ?? CHANNELS)) {
      refs[key as ChannelKey] = newId(clock.now());
      await store.channels.set({
        id: refs[key as ChannelKey]!,
        userId: id,
        key: key as ChannelKey,
        address,
        createdAt: clock.now(),
      });
    }
    return { user: (await store.users.findById(id))!, refs };
  }

  const send = (
    user: User,
    channelType: SendType,
    reference: string | undefined,
    more: Partial<SendRequest> = {},
  ) =>
    sendCode(services, {
      user,
      channelType,
      reference: reference ?? 'no-such-reference',
      locale: undefined,
      clientAddress: CLIENT,
      log: { warn: (details) => warnings.push(details) },
      ...more,
    });

  const events = async (userId: string, event: string) =>
    (await store.audit.list({ userId, event, limit: 1000 })).filter((entry) => entry.event === event);
  const outbox = async (userId: string) =>
    (await store.outbox.list(1000, userId)).map((message) =>
      openOutboxMessage([TEST_STORE_KEYS.seal], message),
    );
  const active = (userId: string) => store.codes.countActive(userId, clock.now());

  return { services, clock, warnings, person, send, events, outbox, active };
}

/** A provider that answers every delivery the same way, for a domain whose routing it replaces. */
const providerAnswering = (outcome: 'fails' | 'throws'): DeliveryProvider => ({
  name: `provider-that-${outcome}`,
  deliver: () =>
    outcome === 'fails'
      ? Promise.resolve({ ok: false, transient: true, reason: 'gateway down' })
      : Promise.reject(new Error('boom')),
});

describe.each(STORE_KINDS)('sending a code to a channel, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a code goes to the person's own channel, in their language, audited as issued and sent without the code or the address",
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store);
      const { user, refs } = await d.person();
      expect(await d.send(user, 'sms', refs.mobile, { locale: 'de' })).toEqual({ to: '+49 *** ***12' });

      const [message, ...others] = await d.outbox(user.id);
      expect(others).toEqual([]);
      expect(message).toMatchObject({ recipient: '+49 170 5550112', subject: 'Ihr Notfallcode' });
      const code = /Notfallcode lautet ([2-9A-Z]{10})\./.exec(message?.text ?? '')?.[1];
      expect(code).toHaveLength(10);
      expect(await d.active(user.id)).toBe(1);

      const [issued] = await d.events(user.id, 'code.issued');
      const [sent] = await d.events(user.id, 'code.sent');
      expect(sent).toMatchObject({
        actor: user.id,
        clientAddress: CLIENT,
        details: {
          codeId: issued?.details.codeId,
          channel: 'sms',
          channelKey: 'mobile',
          to: '+49 *** ***12',
          provider: 'outbox',
          attempts: 1,
        },
      });
      const trail = JSON.stringify(await store.audit.list({ userId: user.id, limit: 100 }));
      expect(trail).not.toContain(code);
      expect(trail).not.toContain('5550112');
    },
  );

  storeTest.concurrent(
    "without a locale asked, the message is in the person's own language and time zone",
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store);
      const { user, refs } = await d.person();
      await store.users.update(user.id, { locale: 'de', timeZone: 'Asia/Tokyo' });
      const updated = (await store.users.findById(user.id))!;
      await d.send(updated, 'smtp', refs.email);
      // 09:15 UTC (fifteen minutes' validity) is 18:15 in Tokyo, as German writes the zone.
      expect((await d.outbox(user.id))[0]?.text).toMatch(/gültig bis 07\.12\.2026, 18:15 GMT\+9\./);
    },
  );

  storeTest.concurrent(
    'a help-desk agent sending for the person is the actor of every entry, with their reason',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store);
      const { user, refs } = await d.person();
      await d.send(user, 'smtp', refs.email, { actor: 'console:desk', details: { reason: 'lost phone' } });
      const [issued] = await d.events(user.id, 'code.issued');
      const [sent] = await d.events(user.id, 'code.sent');
      expect(issued).toMatchObject({ actor: 'console:desk', details: { reason: 'lost phone' } });
      expect(sent?.actor).toBe('console:desk');
    },
  );

  storeTest.concurrent(
    'a reference that is not one of the person’s channels of that type is refused with 130: nothing issued, sent or counted',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store, { DEA_SEND_LIMIT_PER_USER: '1' });
      const { user, refs } = await d.person();
      const other = await d.person({ channels: { mobile: '+49 160 5550999' } });
      const forged: [SendType, string | undefined][] = [
        ['sms', 'not-a-reference'],
        ['sms', other.refs.mobile],
        ['sms', refs.email],
        ['smtp', refs.mobile],
        ['sms', '+49 170 5550112'],
      ];
      for (const [type, reference] of forged)
        await expect(d.send(user, type, reference), reference).rejects.toMatchObject({ errorNumber: 130 });
      expect(await d.active(user.id)).toBe(0);
      expect(await d.outbox(user.id)).toEqual([]);
      expect(await d.events(user.id, 'code.issued')).toEqual([]);
      const refusals = await d.events(user.id, 'code.send_refused');
      expect(refusals.map((entry) => entry.details)).toEqual(
        forged.map(([channel]) => ({ channel, reason: 'unknown-recipient' })).reverse(),
      );
      // The refusals took nothing from the limits: the one send of the person's limit is still there.
      await expect(d.send(user, 'sms', refs.mobile)).resolves.toEqual({ to: '+49 *** ***12' });
    },
  );

  storeTest.concurrent(
    'a switched-off channel type is refused with 130 as an unknown recipient, audited with the reason',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store, { DEA_DELIVERY_TWITTER: 'off' });
      const { user, refs } = await d.person();
      await expect(d.send(user, 'TWITTER', refs.twitter)).rejects.toMatchObject({ errorNumber: 130 });
      expect(await d.active(user.id)).toBe(0);
      expect((await d.events(user.id, 'code.send_refused'))[0]?.details).toEqual({
        channel: 'TWITTER',
        channelKey: 'twitter',
        to: '@ch***',
        reason: 'channel-type-disabled',
      });
      await expect(d.send(user, 'smtp', refs.email)).resolves.toEqual({ to: 'c***@e***.com' });
    },
  );

  storeTest.concurrent(
    'a phone number outside the allowed prefixes, or without a country prefix, is refused with 130',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store, { DEA_ALLOWED_PHONE_PREFIXES: '+49, +43' });
      const { user, refs } = await d.person({
        channels: { mobile: '+1 202 5550143', personalMobile: '0043 664 5550143', telephone: '089 5550143' },
      });
      await expect(d.send(user, 'sms', refs.mobile)).rejects.toMatchObject({ errorNumber: 130 });
      await expect(d.send(user, 'TELEPHONE', refs.telephone)).rejects.toMatchObject({ errorNumber: 130 });
      expect((await d.events(user.id, 'code.send_refused')).map((entry) => entry.details.reason)).toEqual([
        'phone-prefix-not-allowed',
        'phone-prefix-not-allowed',
      ]);
      expect(await d.active(user.id)).toBe(0);
      await expect(d.send(user, 'sms', refs.personalMobile)).resolves.toEqual({ to: '*** ***43' });
    },
  );

  storeTest.concurrent(
    'a channel the person registered is refused while it cools off, and receives codes after',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store);
      const { user } = await d.person({ channels: {} });
      await store.channels.setProven({
        id: 'owned-mobile',
        userId: user.id,
        key: 'personalMobile',
        address: '+49 171 5550100',
        at: d.clock.now(),
      });
      await expect(d.send(user, 'sms', 'owned-mobile')).rejects.toMatchObject({ errorNumber: 130 });
      expect((await d.events(user.id, 'code.send_refused'))[0]?.details).toMatchObject({
        channelKey: 'personalMobile',
        reason: 'cooling',
      });
      expect(await d.active(user.id)).toBe(0);
      d.clock.advance(24 * 60 * MINUTE);
      await expect(d.send(user, 'sms', 'owned-mobile')).resolves.toEqual({ to: '+49 *** ***00' });
    },
  );

  storeTest.concurrent(
    'a policy that shows codes on screen, or none, refuses with 3 before any channel is looked at',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store);
      const cases = [
        [
          { enableECode: true, emergencyCodeDelivery: 'Display' },
          'wrong-delivery-mode',
          'error.wrongDeliveryMode',
        ],
        [{ enableECode: false, emergencyCodeDelivery: 'Channel' }, 'codes-disabled', 'error.codesNotEnabled'],
      ] as const;
      for (const [policy, reason, textKey] of cases) {
        const { user, refs } = await d.person({ policy });
        await expect(d.send(user, 'sms', refs.mobile)).rejects.toMatchObject({ errorNumber: 3, textKey });
        expect((await d.events(user.id, 'code.refused'))[0]?.details).toEqual({
          reason,
          delivery: 'channel',
        });
        expect(await d.events(user.id, 'code.send_refused')).toEqual([]);
        expect(await d.outbox(user.id)).toEqual([]);
      }
    },
  );

  storeTest.concurrent(
    'a person holding the most unused codes is refused with 148 and sent nothing more',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store);
      const { user, refs } = await d.person({ policy: { ...BY_CHANNEL, maxUnusedCodes: 1 } });
      await d.send(user, 'sms', refs.mobile);
      await expect(d.send(user, 'smtp', refs.email)).rejects.toMatchObject({
        errorNumber: 148,
        result: { unusedCodes: 1, nextFreeAt: new Date(T0 + 15 * MINUTE).toISOString() },
      });
      expect(await d.active(user.id)).toBe(1);
      expect((await d.outbox(user.id)).map((message) => message.recipient)).toEqual(['+49 170 5550112']);
      expect((await d.events(user.id, 'code.refused'))[0]?.details).toMatchObject({ reason: 'store-full' });
    },
  );

  storeTest.concurrent(
    'the per-user limit sends n codes and refuses the next with 140 until its window ends, issuing nothing for a refusal',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store, {
        DEA_SEND_LIMIT_PER_USER: '2',
        DEA_SEND_LIMIT_USER_WINDOW_MINUTES: '10',
      });
      const { user, refs } = await d.person();
      await d.send(user, 'sms', refs.mobile);
      d.clock.advance(MINUTE);
      await d.send(user, 'smtp', refs.email);
      d.clock.advance(9 * MINUTE - 1);
      await expect(d.send(user, 'sms', refs.mobile)).rejects.toMatchObject({
        errorNumber: 140,
        result: { retryAfterSeconds: 1 },
      });
      expect(await d.events(user.id, 'code.issued')).toHaveLength(2);
      expect((await d.events(user.id, 'code.send_refused'))[0]?.details).toEqual({
        channel: 'sms',
        channelKey: 'mobile',
        to: '+49 *** ***12',
        reason: 'rate-limit',
        limit: 'user',
        retryAfterSeconds: 1,
      });
      // The window began with the first send: ten minutes after it, a send goes again.
      d.clock.advance(1);
      await expect(d.send(user, 'sms', refs.mobile)).resolves.toEqual({ to: '+49 *** ***12' });
      expect(await d.outbox(user.id)).toHaveLength(3);
    },
  );

  storeTest.concurrent(
    'of twenty sends at once within a per-user limit of five, five are delivered and fifteen refused with 140',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store, { DEA_SEND_LIMIT_PER_USER: '5' });
      const { user, refs } = await d.person();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, () => d.send(user, 'sms', refs.mobile)),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
      const refused = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
      );
      expect(refused).toHaveLength(15);
      for (const error of refused)
        expect(error).toMatchObject({ errorNumber: 140, result: { retryAfterSeconds: 600 } });
      expect(await d.events(user.id, 'code.issued')).toHaveLength(5);
      expect(await d.outbox(user.id)).toHaveLength(5);
    },
  );

  storeTest.concurrent(
    'a delivery that fails or throws answers 150 and invalidates the code it issued; the operator is told why, without the code',
    async ({ testStore: { store }, expect }) => {
      const d = await sendingOn(store);
      const { user, refs } = await d.person();
      for (const outcome of ['fails', 'throws'] as const) {
        d.services.delivery = () => providerAnswering(outcome);
        await expect(d.send(user, 'sms', refs.mobile)).rejects.toMatchObject({ errorNumber: 150 });
        expect(await d.active(user.id)).toBe(0);
      }
      const issued = await d.events(user.id, 'code.issued');
      const failed = await d.events(user.id, 'code.delivery_failed');
      expect(failed.map((entry) => entry.details.codeId)).toEqual(
        issued.map((entry) => entry.details.codeId),
      );
      expect(failed[1]?.details).toMatchObject({
        channel: 'sms',
        channelKey: 'mobile',
        to: '+49 *** ***12',
        provider: 'provider-that-fails',
        reason: expect.stringContaining('gateway down'),
      });
      expect(await d.events(user.id, 'code.sent')).toEqual([]);
      expect(d.warnings).toHaveLength(2);
      expect(d.warnings[0]).toMatchObject({ provider: 'provider-that-fails', to: '+49 *** ***12' });
      expect(JSON.stringify(d.warnings)).not.toContain('5550112');
    },
  );
});
