import {
  CHANNEL_DELIVERY_MODE,
  type ChannelKey,
  ErrorNumber,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  usernameOrThrow,
} from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DEFAULT_CODE_ALPHABET } from '../codes/code-settings.js';
import { DomainError } from '../errors.js';
import {
  availableChannels,
  currentBranding,
  policyAnswer,
  userFieldsOf,
  userInfoOf,
} from './page-answers.js';
import { RememberedDevices } from './remembered-devices.js';

const T0 = Date.UTC(2026, 11, 7, 9);
const HOUR = 3_600_000;
const OFFICE = '10.1.2.3';
const HOME = '198.51.100.7';
const DEFAULTS = {
  codeLength: 10,
  codeAlphabet: DEFAULT_CODE_ALPHABET,
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 1,
};

/** What the page's answers read, over the test's store; SMS switched off, phones only of Germany. */
function pageOf(store: Store) {
  const now = () => T0;
  const services = {
    store,
    config: { codeDefaults: DEFAULTS },
    now,
    rememberedDevices: new RememberedDevices({ store, hashKeys: [Buffer.alloc(32, 1)], now }),
    channelRules: { enabled: (type: string) => type !== 'sms', allowedPhonePrefixes: ['+49'] },
  };
  /** A user in a group of their own with these policies, and these channels a source set. */
  async function addUser(
    policies: Record<string, Record<string, unknown>>,
    channels: Partial<Record<ChannelKey, string>> = {},
  ): Promise<User> {
    const id = newId(T0);
    await store.users.create({
      id,
      username: usernameOrThrow(`page-${id.slice(-8).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Page Visitor',
      locale: null,
      createdAt: T0,
    });
    const groupId = newId(T0);
    await store.groups.create({ id: groupId, name: `page-${id}`, priority: 0 });
    for (const [category, options] of Object.entries(policies))
      await store.groups.setPolicy(groupId, category, options);
    await store.groups.addMember(groupId, id);
    for (const [key, address] of Object.entries(channels))
      await store.channels.set({ id: newId(T0), userId: id, key: key as ChannelKey, address, createdAt: T0 });
    return (await store.users.findById(id))!;
  }
  return { services, addUser };
}

const USER: User = {
  id: 'u-1',
  username: usernameOrThrow('ada'),
  passwordHash: 'hash',
  fullName: 'Ada Lovelace',
  locale: null,
  disabled: false,
  lastLoginAt: null,
} as User;

describe("the page's answers about its user", () => {
  it('userinfo says the full name, the last sign-in as a time or null, and the language only when the user has one', () => {
    expect(userInfoOf(USER)).toEqual({ fullName: 'Ada Lovelace', lastLogin: null, userId: 'u-1' });
    expect(userInfoOf({ ...USER, lastLoginAt: T0, locale: 'de' })).toEqual({
      fullName: 'Ada Lovelace',
      lastLogin: new Date(T0).toISOString(),
      userId: 'u-1',
      userLocale: 'de',
    });
  });

  it('user/get answers the fields asked for, and none the user does not have', () => {
    expect(userFieldsOf({ ...USER, locale: 'fr' }, ['id', 'userLocale'])).toEqual({
      id: 'u-1',
      userLocale: 'fr',
    });
    expect(userFieldsOf({ ...USER, locale: 'fr' }, ['userLocale'])).toEqual({ userLocale: 'fr' });
    expect(userFieldsOf(USER, ['id', 'userLocale'])).toEqual({ id: 'u-1' });
  });
});

describe.each(STORE_KINDS)("the page's answers on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'branding answers only the entries the page knows',
    async ({ testStore: { store }, expect }) => {
      await store.branding.set({ name: 'footerLeft', type: 'text', value: 'ACME', isDefault: false });
      await store.branding.set({ name: 'notABrandingName', type: 'text', value: 'x', isDefault: false });
      const names = (await currentBranding(store)).map((entry) => entry.name);
      expect(names).toContain('footerLeft');
      expect(names).not.toContain('notABrandingName');
    },
  );

  storeTest.concurrent(
    'a policy on screen is followed by channel, and said to miss a reason to trust, away from the trusted network and without a remembered device',
    async ({ testStore: { store }, expect }) => {
      const { services, addUser } = pageOf(store);
      const user = await addUser({
        [POLICY_CATEGORY_SELF_SERVICE]: { enableECode: true, emergencyCodeDelivery: 'Display' },
        [POLICY_CATEGORY_CHANNEL_REGISTRATION]: {
          screenCodeTrustedNetworks: ['10.0.0.0/8'],
          screenCodeRememberedDeviceDays: 30,
        },
      });
      const asked = (clientAddress: string, deviceCookie?: string) =>
        policyAnswer(services, user.id, POLICY_CATEGORY_SELF_SERVICE, { clientAddress, deviceCookie });
      expect(await asked(HOME)).toMatchObject({
        options: { emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        screenCodeTrust: 'missing',
      });
      const atOffice = await asked(OFFICE);
      expect(atOffice.options.emergencyCodeDelivery).toBe('Display');
      expect(atOffice).not.toHaveProperty('screenCodeTrust');
      const device = await services.rememberedDevices.remember({ user, clientAddress: OFFICE }, 'passkey');
      expect((await asked(HOME, device?.token)).options.emergencyCodeDelivery).toBe('Display');
      // Another category is answered as resolved, without the page's rule of trust.
      const other = await policyAnswer(services, user.id, POLICY_CATEGORY_HELP_DESK, {
        clientAddress: HOME,
        deviceCookie: undefined,
      });
      expect(other).not.toHaveProperty('screenCodeTrust');
    },
  );

  storeTest.concurrent(
    'channels are answered masked with their references, leaving out a switched-off type, a number outside the allowed prefixes and a channel still cooling',
    async ({ testStore: { store }, expect }) => {
      const { services, addUser } = pageOf(store);
      const user = await addUser(
        {
          [POLICY_CATEGORY_SELF_SERVICE]: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        },
        {
          email: 'ada@example.com',
          telephone: '+4930555014',
          mobile: '+491705550177',
          personalTelephone: '+33155550100',
        },
      );
      const cooling = await store.channels.setProven({
        id: newId(T0),
        userId: user.id,
        key: 'personalEmail',
        address: 'ada.private@example.org',
        at: T0 - HOUR,
      });
      const map = await availableChannels(services, user, { clientAddress: HOME, deviceCookie: undefined });
      expect(Object.keys(map).sort()).toEqual(['email', 'telephone']);
      const channels = await store.channels.listOfUser(user.id);
      const email = channels.find((channel) => channel.key === 'email');
      expect(map.email).toMatch(new RegExp(`,${email?.id}$`));
      expect(JSON.stringify(map)).not.toContain('ada@example.com');
      expect(JSON.stringify(map)).not.toContain(cooling.id);
    },
  );

  storeTest.concurrent(
    'channels are refused (error 3, audited) unless the policy sends codes by channel',
    async ({ testStore: { store }, expect }) => {
      const { services, addUser } = pageOf(store);
      const shows = await addUser(
        { [POLICY_CATEGORY_SELF_SERVICE]: { enableECode: true, emergencyCodeDelivery: 'Display' } },
        { email: 'ada@example.com' },
      );
      const none = await addUser({}, { email: 'bob@example.com' });
      for (const [user, reason] of [
        [shows, 'wrong-delivery-mode'],
        [none, 'codes-disabled'],
      ] as const) {
        const refused = await availableChannels(services, user, {
          clientAddress: HOME,
          deviceCookie: undefined,
        }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(DomainError);
        expect((refused as DomainError).errorNumber).toBe(ErrorNumber.notPermitted);
        expect(await store.audit.list({ userId: user.id, event: 'code.refused' })).toMatchObject([
          { actor: user.id, clientAddress: HOME, details: { reason, delivery: 'channel' } },
        ]);
      }
    },
  );
});
