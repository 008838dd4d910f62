import { POLICY_CATEGORY_CHANNEL_REGISTRATION, usernameOrThrow } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { testClock } from '../../testing/test-app.js';
import type { CodeDefaults } from '../codes/code-settings.js';
import { RememberedDevices } from '../page/remembered-devices.js';
import { resolvePolicy } from './policy.js';
import { inTrustedNetworks, isTrustedNetwork, pagePolicy, screenCodeTrust } from './screen-code-trust.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const DAY = 24 * 3_600_000;
const UNTRUSTED = '203.0.113.7';
const NETWORKS = ['10.20.0.0/16', '2001:db8:20::/48'];
const DEFAULTS: CodeDefaults = {
  codeLength: 10,
  codeAlphabet: '23456789ABCDEFGHJKLMNPQRSTUVWXYZ',
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 5,
};
const ON_SCREEN = resolvePolicy({ enableECode: true, emergencyCodeDelivery: 'Display' }, DEFAULTS);

describe('trusted networks', () => {
  it('are IPv4 or IPv6 addresses or CIDR ranges, nothing else', () => {
    for (const entry of ['10.0.0.0/8', '192.0.2.1', 'fd00::/8', '2001:db8::1'])
      expect(isTrustedNetwork(entry), entry).toBe(true);
    for (const entry of ['10.0.0.0/33', 'fd00::/129', 'intranet', '10.0.0', '', '/8'])
      expect(isTrustedNetwork(entry), entry).toBe(false);
  });

  it('hold an address inside a range, IPv4 mapped into IPv6 too, and pass over entries that are none', () => {
    expect(inTrustedNetworks(NETWORKS, '10.20.3.4')).toBe(true);
    expect(inTrustedNetworks(NETWORKS, '::ffff:10.20.9.9')).toBe(true);
    expect(inTrustedNetworks(NETWORKS, '2001:db8:20:1::5')).toBe(true);
    expect(inTrustedNetworks(NETWORKS, '10.21.0.1')).toBe(false);
    expect(inTrustedNetworks(NETWORKS, null)).toBe(false);
    expect(inTrustedNetworks(['intranet', '10.20.0.0/16'], '10.20.0.1')).toBe(true);
    expect(inTrustedNetworks(['intranet'], '10.20.0.1')).toBe(false);
  });
});

describe.each(STORE_KINDS)('the reason to trust a code on screen, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  /** A person whose group has these "Channel Registration" options, and the devices over the store. */
  async function personWith(store: Store, registration: Record<string, unknown>) {
    const clock = testClock(T0);
    const userId = newId(T0);
    await store.users.create({
      id: userId,
      username: usernameOrThrow(`trust-${userId.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Robin Trust',
      locale: 'en',
      createdAt: T0,
    });
    const groupId = newId(T0);
    await store.groups.create({ id: groupId, name: `group-${userId}`, priority: 0 });
    await store.groups.setPolicy(groupId, POLICY_CATEGORY_CHANNEL_REGISTRATION, registration);
    await store.groups.addMember(groupId, userId);
    const devices = new RememberedDevices({ store, hashKeys: [Buffer.alloc(32, 3)], now: clock.now });
    const user = (await store.users.findById(userId))!;
    const trust = (clientAddress: string | null, deviceCookie?: string) =>
      screenCodeTrust({ store }, userId, { clientAddress, deviceCookie, devices });
    /** The cookie of a browser remembered now, as a registration session opened in it. */
    const remembered = async () =>
      (await devices.remember({ user, clientAddress: UNTRUSTED }, 'link'))!.token;
    return { userId, user, clock, devices, trust, remembered };
  }

  storeTest.concurrent(
    'without trusted networks or remembered devices nothing more is asked',
    async ({ testStore: { store }, expect }) => {
      const { trust } = await personWith(store, {});
      expect(await trust(UNTRUSTED)).toEqual({ trusted: true, by: 'not-required' });
      expect(await trust(null)).toEqual({ trusted: true, by: 'not-required' });
    },
  );

  storeTest.concurrent(
    'with trusted networks, a request from inside one is trusted and one from elsewhere is not',
    async ({ testStore: { store }, expect }) => {
      const { trust } = await personWith(store, { screenCodeTrustedNetworks: NETWORKS });
      for (const address of ['10.20.3.4', '::ffff:10.20.9.9', '2001:db8:20:1::5'])
        expect(await trust(address), address).toEqual({ trusted: true, by: 'network' });
      expect(await trust('10.21.0.1')).toEqual({ trusted: false, device: 'none' });
      // An address the server could not derive is from no network.
      expect(await trust(null)).toEqual({ trusted: false, device: 'none' });
    },
  );

  storeTest.concurrent(
    'with remembered devices, only the cookie of a browser remembered for this person is a reason, until it expires',
    async ({ testStore: { store }, expect }) => {
      const { trust, remembered, clock } = await personWith(store, { screenCodeRememberedDeviceDays: 30 });
      const cookie = await remembered();
      expect(await trust(UNTRUSTED, cookie)).toEqual({ trusted: true, by: 'device' });
      expect(await trust(UNTRUSTED)).toEqual({ trusted: false, device: 'none' });
      const [id, secret] = cookie.split('.') as [string, string];
      const altered = `${id}.${secret.slice(0, -2)}${secret.endsWith('AA') ? 'BB' : 'AA'}`;
      expect(await trust(UNTRUSTED, altered)).toEqual({ trusted: false, device: 'tampered' });
      expect(await trust(UNTRUSTED, 'not a cookie')).toEqual({ trusted: false, device: 'tampered' });
      expect(await trust(UNTRUSTED, `unknown-device.${secret}`)).toEqual({
        trusted: false,
        device: 'unknown',
      });
      clock.advance(30 * DAY - 1);
      expect(await trust(UNTRUSTED, cookie)).toEqual({ trusted: true, by: 'device' });
      clock.advance(1);
      expect(await trust(UNTRUSTED, cookie)).toEqual({ trusted: false, device: 'expired' });
    },
  );

  storeTest.concurrent(
    "another person's remembered browser, or a forgotten one, is no reason",
    async ({ testStore: { store }, expect }) => {
      const person = await personWith(store, { screenCodeRememberedDeviceDays: 7 });
      const other = await personWith(store, { screenCodeRememberedDeviceDays: 7 });
      const othersCookie = await other.remembered();
      expect(await person.trust(UNTRUSTED, othersCookie)).toEqual({ trusted: false, device: 'other-user' });
      const cookie = await person.remembered();
      expect(await person.devices.forgetAll(person.user, { actor: 'cli', clientAddress: null })).toBe(1);
      expect(await person.trust(UNTRUSTED, cookie)).toEqual({ trusted: false, device: 'forgotten' });
      expect(await other.trust(UNTRUSTED, othersCookie)).toEqual({ trusted: true, by: 'device' });
    },
  );

  storeTest.concurrent(
    'a browser remembered under the previous secret still holds after a rotation, and under no other',
    async ({ testStore: { store }, expect }) => {
      const { user, clock } = await personWith(store, { screenCodeRememberedDeviceDays: 3 });
      const [previous, current, stranger] = [1, 2, 3].map((fill) => Buffer.alloc(32, fill)) as [
        Buffer,
        Buffer,
        Buffer,
      ];
      const devices = (hashKeys: Buffer[]) => new RememberedDevices({ store, hashKeys, now: clock.now });
      const remembered = await devices([previous]).remember({ user, clientAddress: null }, 'link');
      expect(await devices([current, previous]).check(user.id, remembered!.token)).toMatchObject({
        held: true,
      });
      expect(await devices([current, stranger]).check(user.id, remembered!.token)).toEqual({
        held: false,
        refusal: 'tampered',
      });
    },
  );

  storeTest.concurrent(
    'a network is trusted before any cookie is looked at; with networks only, a cookie counts for nothing',
    async ({ testStore: { store }, expect }) => {
      const both = await personWith(store, {
        screenCodeTrustedNetworks: NETWORKS,
        screenCodeRememberedDeviceDays: 7,
      });
      expect(await both.trust('10.20.0.9', 'not a cookie')).toEqual({ trusted: true, by: 'network' });
      expect(await both.trust(UNTRUSTED, await both.remembered())).toEqual({ trusted: true, by: 'device' });
      const networksOnly = await personWith(store, { screenCodeTrustedNetworks: NETWORKS });
      expect(
        await networksOnly.devices.remember({ user: networksOnly.user, clientAddress: null }, 'link'),
      ).toBe(undefined);
      expect(await networksOnly.trust(UNTRUSTED, 'any.cookie-of-sixteen-chars')).toEqual({
        trusted: false,
        device: 'none',
      });
    },
  );

  storeTest.concurrent(
    'a stored network that is no address range trusts no request but still asks for a reason; days out of bounds remember none',
    async ({ testStore: { store }, expect }) => {
      const { trust, user, devices } = await personWith(store, {
        screenCodeTrustedNetworks: ['intranet'],
        screenCodeRememberedDeviceDays: 401,
      });
      expect(await trust('10.0.0.1')).toEqual({ trusted: false, device: 'none' });
      expect(await devices.remember({ user, clientAddress: null }, 'link')).toBeUndefined();
    },
  );

  storeTest.concurrent(
    'the registration options the caller read already decide, not the store',
    async ({ testStore: { store }, expect }) => {
      const { userId, devices } = await personWith(store, {});
      const asRead = { stored: { screenCodeTrustedNetworks: NETWORKS } };
      const request = {
        clientAddress: UNTRUSTED,
        deviceCookie: undefined,
        devices,
        registrationPolicy: asRead,
      };
      expect(await screenCodeTrust({ store }, userId, request)).toEqual({ trusted: false, device: 'none' });
    },
  );

  storeTest.concurrent(
    'the page follows a policy on screen from where no reason holds by channel, and says the trust is missing',
    async ({ testStore: { store }, expect }) => {
      const { userId, devices } = await personWith(store, { screenCodeTrustedNetworks: NETWORKS });
      const from = (clientAddress: string) => ({ clientAddress, deviceCookie: undefined, devices });
      expect(await pagePolicy({ store }, userId, ON_SCREEN, from(UNTRUSTED))).toEqual({
        options: { ...ON_SCREEN, emergencyCodeDelivery: 'Channel' },
        screenCodeTrust: 'missing',
        trust: { trusted: false, device: 'none' },
      });
      expect(await pagePolicy({ store }, userId, ON_SCREEN, from('10.20.1.1'))).toEqual({
        options: ON_SCREEN,
        trust: { trusted: true, by: 'network' },
      });
      // A policy that sends by channel, or gives no codes, asks for no trust at all.
      for (const policy of [
        resolvePolicy({ enableECode: true, emergencyCodeDelivery: 'Channel' }, DEFAULTS),
        resolvePolicy({ enableECode: false }, DEFAULTS),
      ])
        expect(await pagePolicy({ store }, userId, policy, from(UNTRUSTED))).toEqual({ options: policy });
    },
  );
});
