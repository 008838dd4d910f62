import { describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { dumpStoreText } from '../../testing/store-dump.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { sendLimitsOf } from './send-limit-settings.js';
import { type LimitRule, type SendAttempt, SendLimits, type SendLimitSettings } from './send-limits.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const MINUTE = 60_000;
const KEY = Buffer.alloc(32, 5);
const PLENTY: LimitRule = { max: 1000, windowMs: 60 * MINUTE };

/** Limits with every rule plentiful but those given. */
const limitsOn = (store: Store, rules: Partial<SendLimitSettings>) =>
  new SendLimits(
    store.rateCounters,
    { perUser: PLENTY, perRecipient: PLENTY, perAddress: PLENTY, perChannelType: PLENTY, ...rules },
    KEY,
  );

/** A send from user `n`, from address `n`, to a recipient of its own, unless the test says otherwise. */
const attempt = (n: number, more: Partial<SendAttempt> = {}): SendAttempt => ({
  userId: `user-${n}`,
  channelType: 'smtp',
  recipient: `person${n}@example.com`,
  clientAddress: `198.51.100.${n}`,
  ...more,
});

describe('the send limit settings', () => {
  it('turn counts and minutes into the four rules, each window in milliseconds', () => {
    expect(
      sendLimitsOf({
        DEA_SEND_LIMIT_PER_USER: 5,
        DEA_SEND_LIMIT_USER_WINDOW_MINUTES: 10,
        DEA_SEND_LIMIT_PER_RECIPIENT: 3,
        DEA_SEND_LIMIT_RECIPIENT_WINDOW_MINUTES: 60,
        DEA_SEND_LIMIT_PER_ADDRESS: 20,
        DEA_SEND_LIMIT_ADDRESS_WINDOW_MINUTES: 15,
        DEA_SEND_LIMIT_PER_CHANNEL_TYPE: 1000,
        DEA_SEND_LIMIT_CHANNEL_TYPE_WINDOW_MINUTES: 1440,
      }),
    ).toEqual({
      perUser: { max: 5, windowMs: 10 * MINUTE },
      perRecipient: { max: 3, windowMs: 60 * MINUTE },
      perAddress: { max: 20, windowMs: 15 * MINUTE },
      perChannelType: { max: 1000, windowMs: 1440 * MINUTE },
    });
  });
});

describe.each(STORE_KINDS)('the send limits on %s', (kind) => {
  storeTest.override('storeKind', kind);

  const scopes = [
    ['user', { perUser: { max: 3, windowMs: 10 * MINUTE } }, (n: number) => attempt(n, { userId: 'same' })],
    [
      'recipient',
      { perRecipient: { max: 3, windowMs: 10 * MINUTE } },
      (n: number) => attempt(n, { recipient: 'same@example.com' }),
    ],
    [
      'address',
      { perAddress: { max: 3, windowMs: 10 * MINUTE } },
      (n: number) => attempt(n, { clientAddress: '203.0.113.1' }),
    ],
    ['channel-type', { perChannelType: { max: 3, windowMs: 10 * MINUTE } }, (n: number) => attempt(n)],
  ] as const;

  for (const [scope, rules, nth] of scopes) {
    storeTest.concurrent(
      `the ${scope} limit allows its maximum within the window, refuses one more with its scope, and allows again when the window ends`,
      async ({ testStore: { store }, expect }) => {
        const limits = limitsOn(store, rules);
        for (const n of [1, 2, 3])
          expect(await limits.take(nth(n), T0 + n * MINUTE)).toEqual({ allowed: true });
        // The window began with the first send, at T0 + 1 minute.
        expect(await limits.take(nth(4), T0 + 11 * MINUTE - 1)).toEqual({
          allowed: false,
          scope,
          retryAfterSeconds: 1,
        });
        expect(await limits.take(nth(5), T0 + 11 * MINUTE)).toEqual({ allowed: true });
      },
    );
  }

  storeTest.concurrent(
    'a refused send takes nothing from the other limits',
    async ({ testStore: { store }, expect }) => {
      const limits = limitsOn(store, {
        perUser: { max: 2, windowMs: 10 * MINUTE },
        perRecipient: { max: 1, windowMs: 10 * MINUTE },
      });
      const toA = attempt(1, { recipient: 'a@example.com' });
      expect(await limits.take(toA, T0)).toEqual({ allowed: true });
      for (let again = 0; again < 3; again += 1)
        expect(await limits.take(toA, T0)).toMatchObject({ allowed: false, scope: 'recipient' });
      // Had the refusals counted, the user's two sends would be used up.
      expect(await limits.take(attempt(1, { recipient: 'b@example.com' }), T0)).toEqual({ allowed: true });
      expect(await limits.take(attempt(1, { recipient: 'c@example.com' }), T0)).toMatchObject({
        allowed: false,
        scope: 'user',
      });
    },
  );

  storeTest.concurrent(
    'the wait is said in whole seconds, rounded up',
    async ({ testStore: { store }, expect }) => {
      const limits = limitsOn(store, { perUser: { max: 1, windowMs: 10 * MINUTE } });
      await limits.take(attempt(1), T0);
      expect(await limits.take(attempt(1), T0)).toMatchObject({ retryAfterSeconds: 600 });
      expect(await limits.take(attempt(1), T0 + 1)).toMatchObject({ retryAfterSeconds: 600 });
      expect(await limits.take(attempt(1), T0 + 1001)).toMatchObject({ retryAfterSeconds: 599 });
    },
  );

  storeTest.concurrent(
    "one channel type's budget spent leaves the other types theirs",
    async ({ testStore: { store }, expect }) => {
      const limits = limitsOn(store, { perChannelType: { max: 2, windowMs: 60 * MINUTE } });
      for (const n of [1, 2]) expect(await limits.take(attempt(n), T0)).toEqual({ allowed: true });
      expect(await limits.take(attempt(3), T0)).toMatchObject({ allowed: false, scope: 'channel-type' });
      expect(await limits.take(attempt(4, { channelType: 'sms', recipient: '+49 170 5550004' }), T0)).toEqual(
        { allowed: true },
      );
    },
  );

  storeTest.concurrent(
    'every spelling of one phone number or mailbox is one recipient, whoever sends to it',
    async ({ testStore: { store }, expect }) => {
      const limits = limitsOn(store, { perRecipient: { max: 2, windowMs: 60 * MINUTE } });
      const spellings = [
        ['sms', ['+49 170 5550002', '0049 170 5550002', '+49 (0) 170 5550002', '+491705550002']],
        ['smtp', ['Alice@Example.com', 'Alice@EXAMPLE.COM', ' Alice@example.com ', 'Alice@example.COM']],
      ] as const;
      for (const [channelType, recipients] of spellings) {
        const outcomes = await Promise.all(
          recipients.map((recipient, n) => limits.take(attempt(n, { channelType, recipient }), T0)),
        );
        expect(
          outcomes.filter((outcome) => outcome.allowed),
          channelType,
        ).toHaveLength(2);
      }
      // Written in any case, the mailbox is the same; another mailbox has a count of its own.
      expect(await limits.take(attempt(8, { recipient: 'alice@example.com' }), T0)).toMatchObject({
        allowed: false,
        scope: 'recipient',
      });
      expect(await limits.take(attempt(9, { recipient: 'bob@example.com' }), T0)).toEqual({ allowed: true });
    },
  );

  storeTest.concurrent(
    'of twenty sends at once under a limit of five, exactly five are allowed',
    async ({ testStore: { store }, expect }) => {
      const limits = limitsOn(store, { perUser: { max: 5, windowMs: 10 * MINUTE } });
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, n) => limits.take(attempt(n, { userId: 'same' }), T0)),
      );
      expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(5);
      expect(outcomes.filter((outcome) => !outcome.allowed && outcome.scope === 'user')).toHaveLength(15);
    },
  );

  storeTest.concurrent(
    'the counters hold no phone number or address, only their keyed hash',
    async ({ testStore, expect }) => {
      const limits = limitsOn(testStore.store, {});
      await limits.take(attempt(1, { channelType: 'sms', recipient: '+49 170 5550188' }), T0);
      await limits.take(attempt(2, { recipient: 'hidden.person@example.com' }), T0);
      const dump = await dumpStoreText(testStore);
      expect(dump).toContain('send:user:user-1');
      for (const secret of ['5550188', 'hidden.person', 'hidden.person@example.com'])
        expect(dump).not.toContain(secret);
    },
  );
});
