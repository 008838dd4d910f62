import {
  CHANNEL_DELIVERY_MODE,
  DEFAULT_CHANNEL_REGISTRATION_POLICY,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  type ChannelKey,
} from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { helpDeskOffers } from './help-desk-offers.js';
import { BY_CHANNEL, callerOf, helpDeskOf, T0 } from '../../testing/help-desk-domain.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const REGISTRATION = {
  ...DEFAULT_CHANNEL_REGISTRATION_POLICY,
  registrationCoolingHours: 24,
  reproveAfterDays: 30,
};
const SENDS = { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE };
const SHOWS = { enableECode: true, emergencyCodeDelivery: 'Display' };
/** A channel a source set, and one its person registered and proved `hoursAgo`. */
const fromSource = { id: 'source', origin: 'source' as const, provenAt: null, registeredAt: null };
const registered = (id: string, hoursAgo: number) => ({
  id,
  origin: 'owner' as const,
  provenAt: T0 - hoursAgo * HOUR,
  registeredAt: T0 - hoursAgo * HOUR,
});
const offersOf = (
  policy: typeof SENDS,
  channels: Parameters<typeof helpDeskOffers>[2],
  user = { disabled: false },
) => helpDeskOffers(user, policy, channels, REGISTRATION, T0);

describe('what the help desk offers a user', () => {
  it('nothing to a disabled user, nor under a policy without codes', () => {
    for (const [user, policy] of [
      [{ disabled: true }, SENDS],
      [{ disabled: false }, { ...SENDS, enableECode: false }],
    ] as const) {
      const offers = offersOf(policy, [fromSource], user);
      expect({ onScreen: offers.onScreen, channels: offers.channels }).toEqual({
        onScreen: false,
        channels: [],
      });
    }
  });

  it('a code on screen to read out under either delivery, but sends only when the policy sends by channel', () => {
    expect(offersOf(SHOWS, [fromSource])).toMatchObject({ onScreen: true, channels: [] });
    expect(offersOf(SENDS, [fromSource])).toMatchObject({ onScreen: true, channels: ['source'] });
  });

  it('no send to a registered channel while it cools: until its last millisecond, and from the moment it ends', () => {
    const cooling = registered('cooling', 24);
    const stillCooling = { ...cooling, registeredAt: T0 - 24 * HOUR + 1 };
    expect(offersOf(SENDS, [stillCooling]).waiting.get('cooling')).toEqual({
      usable: false,
      reason: 'cooling',
      until: T0 + 1,
    });
    expect(offersOf(SENDS, [stillCooling]).channels).toEqual([]);
    expect(offersOf(SENDS, [cooling]).channels).toEqual(['cooling']);
  });

  it('no send to a registered channel whose proof is older than reproveAfterDays, from its first millisecond', () => {
    const due = registered('due', 30 * 24);
    const almost = { ...due, provenAt: T0 - 30 * DAY + 1 };
    expect(offersOf(SENDS, [due]).waiting.get('due')).toEqual({
      usable: false,
      reason: 'proof-expired',
      since: T0,
    });
    expect(offersOf(SENDS, [almost]).channels).toEqual(['due']);
  });

  it("a source's channel never waits, and waiting channels are said even when nothing is sent", () => {
    const offers = offersOf(SHOWS, [fromSource, registered('cooling', 1)]);
    expect([...offers.waiting.keys()]).toEqual(['cooling']);
    expect(offers.channels).toEqual([]);
  });
});

describe.each(STORE_KINDS)("the help desk's view of waiting channels on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'shows a cooling channel with the time it may receive codes and one to prove again, and offers only the others',
    async ({ testStore: { store }, expect }) => {
      const h = helpDeskOf(store);
      const { user, groupId } = await h.addUser({
        policy: BY_CHANNEL,
        channels: { email: 'kim@example.com' },
      });
      await store.groups.setPolicy(groupId, POLICY_CATEGORY_CHANNEL_REGISTRATION, {
        registrationCoolingHours: 24,
        reproveAfterDays: 30,
      });
      const proven = (key: ChannelKey, address: string, hoursAgo: number) =>
        store.channels.setProven({ id: newId(T0), userId: user.id, key, address, at: T0 - hoursAgo * HOUR });
      const cooling = await proven('personalMobile', '+491705550142', 23);
      const usable = await proven('personalEmail', 'kim.private@example.org', 25);
      const stale = await proven('telephone', '+4930555014', 31 * 24);
      const email = (await store.channels.listOfUser(user.id)).find((channel) => channel.key === 'email');

      const view = await h.desk.user(callerOf('helpdesk'), user.id);
      expect([...view.offers.channels].sort()).toEqual([email?.id, usable.id].sort());
      const byReference = new Map(view.channels.map((channel) => [channel.reference, channel]));
      expect(byReference.get(email?.id ?? '')).toMatchObject({ waiting: null, usableFrom: null });
      expect(byReference.get(usable.id)).toMatchObject({ waiting: null, usableFrom: null });
      expect(byReference.get(cooling.id)).toMatchObject({
        waiting: 'cooling',
        usableFrom: new Date(T0 + HOUR).toISOString(),
      });
      expect(byReference.get(stale.id)).toMatchObject({ waiting: 'proof-expired', usableFrom: null });
    },
  );
});
