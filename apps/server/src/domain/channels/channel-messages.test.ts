import { type ChannelKey, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { DeliveryProvider } from '../../delivery/delivery.js';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS, TEST_STORE_KEYS } from '../../testing/stores.js';
import { composedDomain } from '../../testing/composed-domain.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const MINUTE = 60_000;
const CLIENT = '198.51.100.7';

/**
 * The channels' use case over the test's store, composed as the server composes it, on a clock
 * the test moves: a person with channels from their source, and what the outbox holds for them.
 */
async function channelsOn(store: Store, settings: Record<string, string> = {}) {
  const { services, clock } = await composedDomain(store, settings, T0);

  async function person(channels: Partial<Record<ChannelKey, string>>) {
    const id = newId(T0);
    await store.users.create({
      id,
      username: usernameOrThrow(`uma-${id.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Uma Channel',
      locale: 'en',
      createdAt: T0,
    });
    for (const [key, address] of Object.entries(channels))
      await store.channels.set({
        id: `${key}-${id}`,
        userId: id,
        key: key as ChannelKey,
        address,
        createdAt: T0,
      });
    const user: User = (await store.users.findById(id))!;
    return { user, actor: id, clientAddress: CLIENT };
  }

  const outbox = async (userId: string) =>
    (await store.outbox.list(100, userId)).map((message) =>
      openOutboxMessage([TEST_STORE_KEYS.seal], message),
    );
  const entries = async (userId: string, event: string) =>
    (await store.audit.list({ userId, event, limit: 100 })).map((entry) => entry.details).reverse();

  return { services, clock, proofs: services.channelProofs, person, outbox, entries };
}

describe.each(STORE_KINDS)("a person's test messages and list of channels, on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a test message goes to the channel in the language asked, without a code, audited',
    async ({ testStore: { store }, expect }) => {
      const d = await channelsOn(store);
      const uma = await d.person({ email: 'uma@example.com' });
      expect(await d.proofs.sendTest({ ...uma, key: 'email', locale: 'de' })).toEqual({
        to: 'u***@e***.com',
      });
      const [message, ...others] = await d.outbox(uma.user.id);
      expect(others).toEqual([]);
      expect(message).toMatchObject({
        recipient: 'uma@example.com',
        subject: 'Testnachricht von Emergency Access',
      });
      expect(message?.text).not.toMatch(/\d{6}/);
      expect(await d.entries(uma.user.id, 'channel.test_sent')).toEqual([
        { key: 'email', channel: 'smtp', to: 'u***@e***.com', provider: 'outbox', attempts: 1 },
      ]);
    },
  );

  storeTest.concurrent(
    'a key the person has no channel of, a switched-off type or a foreign number is refused with 130 and nothing goes',
    async ({ testStore: { store }, expect }) => {
      const d = await channelsOn(store, { DEA_DELIVERY_TWITTER: 'off', DEA_ALLOWED_PHONE_PREFIXES: '+49' });
      const uma = await d.person({ twitter: '@uma', mobile: '+1 202 5550143' });
      for (const key of ['email', 'twitter', 'mobile'] as const)
        await expect(d.proofs.sendTest({ ...uma, key }), key).rejects.toMatchObject({ errorNumber: 130 });
      expect(await d.entries(uma.user.id, 'channel.test_refused')).toEqual([
        { key: 'email', channel: 'smtp', reason: 'unknown-recipient' },
        {
          key: 'twitter',
          channel: 'TWITTER',
          reason: 'unusable-address',
          to: '@um***',
          cause: 'channel-type-disabled',
        },
        {
          key: 'mobile',
          channel: 'sms',
          reason: 'unusable-address',
          to: '+12 *** ***43',
          cause: 'phone-prefix-not-allowed',
        },
      ]);
      expect(await d.outbox(uma.user.id)).toEqual([]);
    },
  );

  storeTest.concurrent(
    'test messages count in the send limits: of eight at once under a recipient limit of three, three go',
    async ({ testStore: { store }, expect }) => {
      const d = await channelsOn(store, { DEA_SEND_LIMIT_PER_RECIPIENT: '3' });
      const uma = await d.person({ email: 'uma@example.com' });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, () => d.proofs.sendTest({ ...uma, key: 'email' })),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ errorNumber: 140 });
      expect(await d.outbox(uma.user.id)).toHaveLength(3);
      expect((await d.entries(uma.user.id, 'channel.test_refused')).map((details) => details.limit)).toEqual(
        Array(5).fill('recipient'),
      );
    },
  );

  storeTest.concurrent(
    'a test message that could not be delivered is refused with 150, audited with the cause',
    async ({ testStore: { store }, expect }) => {
      const d = await channelsOn(store);
      const uma = await d.person({ email: 'uma@example.com' });
      const failing: DeliveryProvider = {
        name: 'failing',
        deliver: () => Promise.resolve({ ok: false, transient: false, reason: 'HTTP 400' }),
      };
      d.services.delivery = () => failing;
      await expect(d.proofs.sendTest({ ...uma, key: 'email' })).rejects.toMatchObject({ errorNumber: 150 });
      expect(await d.entries(uma.user.id, 'channel.test_refused')).toEqual([
        {
          key: 'email',
          channel: 'smtp',
          reason: 'delivery-failed',
          to: 'u***@e***.com',
          provider: 'failing',
          cause: 'HTTP 400',
        },
      ]);
      expect(await d.entries(uma.user.id, 'channel.test_sent')).toEqual([]);
    },
  );

  storeTest.concurrent(
    "the list names a source's channel's source and the person's own proofs with their tries left, until they expire",
    async ({ testStore: { store }, expect }) => {
      const d = await channelsOn(store, { DEA_CHANNEL_PROOF_TRIES: '3', DEA_CHANNEL_PROOF_MINUTES: '15' });
      const uma = await d.person({ mobile: '+491701234567' });
      const started = await d.proofs.start({
        ...uma,
        key: 'personalEmail',
        address: 'uma@example.org',
        origin: 'owner',
      });
      await expect(
        d.proofs.prove({ ...uma, proofId: started.proofId, code: '00000000', origin: 'owner' }),
      ).rejects.toMatchObject({
        errorNumber: 3,
      });
      // An agent's proof is the agent's to end: the person's list does not show it.
      await d.proofs.start({
        ...uma,
        actor: 'console:desk',
        key: 'personalMobile',
        address: '+49 171 5550100',
        origin: 'console',
      });
      expect(await d.proofs.list(uma.user)).toEqual([
        expect.objectContaining({ state: 'registered', key: 'mobile', origin: 'source', source: 'local' }),
        {
          state: 'pending',
          key: 'personalEmail',
          type: 'smtp',
          proofId: started.proofId,
          to: 'u***@e***.org',
          expiresAt: T0 + 15 * MINUTE,
          triesLeft: 2,
        },
      ]);
      d.clock.advance(15 * MINUTE);
      expect((await d.proofs.list(uma.user)).map((view) => view.state)).toEqual(['registered']);
    },
  );
});
