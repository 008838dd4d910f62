import {
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_SELF_SERVICE,
  usernameOrThrow,
} from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { CodeDefaults } from '../codes/code-settings.js';
import { RememberedDevices } from '../page/remembered-devices.js';
import { emergencyPolicy, PAGE_POLICY_CATEGORIES, policyOf } from './emergency-policy.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const CLIENT = '198.51.100.7';
const ON_SCREEN = { enableECode: true, emergencyCodeDelivery: 'Display' };
const BY_CHANNEL = { enableECode: true, emergencyCodeDelivery: 'Channel' };
const DEFAULTS: CodeDefaults = {
  codeLength: 10,
  codeAlphabet: '23456789ABCDEFGHJKLMNPQRSTUVWXYZ',
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 5,
};

describe.each(STORE_KINDS)("a person's emergency policy on %s", (kind) => {
  storeTest.override('storeKind', kind);

  /**
   * A person in a group with these policies (none: no group at all), the policy's services over
   * the store, and the entries written about them.
   */
  async function personWith(store: Store, policies: Record<string, Record<string, unknown>> | undefined) {
    const userId = newId(T0);
    await store.users.create({
      id: userId,
      username: usernameOrThrow(`policy-${userId.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Pat Policy',
      locale: 'en',
      createdAt: T0,
    });
    if (policies !== undefined) {
      const groupId = newId(T0);
      await store.groups.create({ id: groupId, name: `group-${userId}`, priority: 0 });
      for (const [category, options] of Object.entries(policies))
        await store.groups.setPolicy(groupId, category, options);
      await store.groups.addMember(groupId, userId);
    }
    const services = { store, config: { codeDefaults: DEFAULTS }, now: () => T0 };
    const devices = new RememberedDevices({ store, hashKeys: [Buffer.alloc(32, 3)], now: () => T0 });
    const page = (clientAddress: string) => ({ clientAddress, deviceCookie: undefined, devices });
    const entries = async () =>
      (await store.audit.list({ userId, limit: 100 })).map(({ event, actor, clientAddress, details }) => ({
        event,
        actor,
        clientAddress,
        details,
      }));
    return { userId, services, page, entries };
  }

  storeTest.concurrent(
    'answers the policy when it gives codes the way asked, and writes nothing',
    async ({ testStore: { store }, expect }) => {
      const onScreen = await personWith(store, {
        [POLICY_CATEGORY_SELF_SERVICE]: { ...ON_SCREEN, codeLength: 12 },
      });
      expect(await emergencyPolicy(onScreen.services, onScreen.userId, 'screen', CLIENT)).toEqual({
        ...DEFAULTS,
        ...ON_SCREEN,
        codeLength: 12,
      });
      const byChannel = await personWith(store, { [POLICY_CATEGORY_SELF_SERVICE]: BY_CHANNEL });
      expect(await emergencyPolicy(byChannel.services, byChannel.userId, 'channel', CLIENT)).toMatchObject(
        BY_CHANNEL,
      );
      expect([...(await onScreen.entries()), ...(await byChannel.entries())]).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a code asked the other way than the policy gives is refused with 3, audited as the wrong delivery mode',
    async ({ testStore: { store }, expect }) => {
      const { userId, services, entries } = await personWith(store, {
        [POLICY_CATEGORY_SELF_SERVICE]: BY_CHANNEL,
      });
      await expect(emergencyPolicy(services, userId, 'screen', CLIENT)).rejects.toMatchObject({
        errorNumber: 3,
        textKey: 'error.wrongDeliveryMode',
      });
      expect(await entries()).toEqual([
        {
          event: 'code.refused',
          actor: userId,
          clientAddress: CLIENT,
          details: { reason: 'wrong-delivery-mode', delivery: 'screen' },
        },
      ]);
    },
  );

  storeTest.concurrent(
    'codes switched off, or no policy at all, are refused with 3 whichever way asked; an agent is the actor',
    async ({ testStore: { store }, expect }) => {
      const switchedOff = await personWith(store, {
        [POLICY_CATEGORY_SELF_SERVICE]: { ...ON_SCREEN, enableECode: false },
      });
      const noGroup = await personWith(store, undefined);
      for (const { userId, services, entries } of [switchedOff, noGroup]) {
        for (const delivery of ['screen', 'channel'] as const)
          await expect(
            emergencyPolicy(services, userId, delivery, null, 'console:desk'),
          ).rejects.toMatchObject({
            errorNumber: 3,
            textKey: 'error.codesNotEnabled',
          });
        expect(await entries()).toEqual(
          ['channel', 'screen'].map((delivery) => ({
            event: 'code.refused',
            actor: 'console:desk',
            clientAddress: null,
            details: { reason: 'codes-disabled', delivery },
          })),
        );
      }
    },
  );

  storeTest.concurrent(
    'asked from the page where no reason to trust holds, a code on screen is refused as untrusted, and one by channel is given',
    async ({ testStore: { store }, expect }) => {
      const { userId, services, page, entries } = await personWith(store, {
        [POLICY_CATEGORY_SELF_SERVICE]: ON_SCREEN,
        [POLICY_CATEGORY_CHANNEL_REGISTRATION]: { screenCodeTrustedNetworks: ['10.20.0.0/16'] },
      });
      await expect(
        emergencyPolicy(services, userId, 'screen', '203.0.113.7', undefined, page('203.0.113.7')),
      ).rejects.toMatchObject({ errorNumber: 3, textKey: 'error.screenCodeUntrusted' });
      expect(await entries()).toEqual([
        {
          event: 'code.screen_untrusted',
          actor: userId,
          clientAddress: '203.0.113.7',
          details: { device: 'none' },
        },
      ]);
      expect(
        await emergencyPolicy(services, userId, 'channel', '203.0.113.7', undefined, page('203.0.113.7')),
      ).toMatchObject({ enableECode: true, emergencyCodeDelivery: 'Channel' });
      // From the trusted network, on screen as the policy says; by channel then is the wrong way.
      expect(
        await emergencyPolicy(services, userId, 'screen', '10.20.0.5', undefined, page('10.20.0.5')),
      ).toMatchObject(ON_SCREEN);
      await expect(
        emergencyPolicy(services, userId, 'channel', '10.20.0.5', undefined, page('10.20.0.5')),
      ).rejects.toMatchObject({ textKey: 'error.wrongDeliveryMode' });
      // Asked from no page (the help desk), the person's policy alone decides.
      expect(await emergencyPolicy(services, userId, 'screen', null, 'console:desk')).toMatchObject(
        ON_SCREEN,
      );
    },
  );

  storeTest.concurrent(
    "the policies read with the session decide for their own person only; another person's are read anew",
    async ({ testStore: { store }, expect }) => {
      const { userId, services, page } = await personWith(store, {
        [POLICY_CATEGORY_SELF_SERVICE]: BY_CHANNEL,
      });
      const readWith = (reader: string) => ({
        userId: reader,
        categories: PAGE_POLICY_CATEGORIES,
        stored: [ON_SCREEN, undefined] as [Record<string, unknown>, undefined],
      });
      // As read with this person's session (the store has changed since): they count.
      expect(
        await emergencyPolicy(services, userId, 'screen', CLIENT, undefined, {
          ...page(CLIENT),
          stored: readWith(userId),
        }),
      ).toMatchObject(ON_SCREEN);
      // Read with someone else's session, or of other categories: the store's policy counts.
      for (const stored of [
        readWith('someone-else'),
        { ...readWith(userId), categories: ['A', 'B'] as const },
      ])
        await expect(
          emergencyPolicy(services, userId, 'screen', CLIENT, undefined, { ...page(CLIENT), stored }),
        ).rejects.toMatchObject({ textKey: 'error.wrongDeliveryMode' });
    },
  );

  storeTest.concurrent(
    "policyOf reads a category's options, checked, with the defaults for the rest",
    async ({ testStore: { store }, expect }) => {
      const { userId, services } = await personWith(store, {
        [POLICY_CATEGORY_SELF_SERVICE]: { enableECode: true, codeLength: 5, codeUses: 3 },
        Special: { enableECode: true, emergencyCodeDelivery: 'Channel' },
      });
      expect(await policyOf(services, userId)).toEqual({
        ...DEFAULTS,
        enableECode: true,
        emergencyCodeDelivery: 'Display',
        codeUses: 3,
      });
      expect(await policyOf(services, userId, 'Special')).toMatchObject(BY_CHANNEL);
      expect(await policyOf(services, userId, 'None')).toMatchObject({ enableECode: false });
    },
  );
});
