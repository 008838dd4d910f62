import { POLICY_CATEGORY_CHANNEL_REGISTRATION, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { RememberedDevices } from './remembered-devices.js';

const T0 = Date.UTC(2026, 11, 7, 9);
const DAY = 86_400_000;
const CURRENT = Buffer.alloc(32, 1);
const PREVIOUS = Buffer.alloc(32, 2);

/**
 * Remembered devices over the test's store at a clock the test moves; `addUser` makes a user in a
 * group whose "Channel Registration" policy remembers devices for `days`.
 */
function devicesOf(store: Store, hashKeys: readonly Buffer[] = [CURRENT]) {
  let at = T0;
  const now = () => at;
  const devices = new RememberedDevices({ store, hashKeys, now });
  async function addUser(days: number) {
    const id = newId(at);
    await store.users.create({
      id,
      username: usernameOrThrow(`device-${id.slice(-8).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Device Holder',
      locale: 'en',
      createdAt: at,
    });
    const groupId = newId(at);
    await store.groups.create({ id: groupId, name: `devices-${id}`, priority: 0 });
    await store.groups.setPolicy(groupId, POLICY_CATEGORY_CHANNEL_REGISTRATION, {
      screenCodeRememberedDeviceDays: days,
    });
    await store.groups.addMember(groupId, id);
    return (await store.users.findById(id))!;
  }
  const remember = async (user: Awaited<ReturnType<typeof addUser>>) =>
    (await devices.remember({ user, clientAddress: '198.51.100.7' }, 'passkey'))!;
  return { devices, addUser, remember, advance: (ms: number) => (at += ms) };
}

describe.each(STORE_KINDS)('remembered devices on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a policy that remembers no device remembers none: no cookie, no row, no entry',
    async ({ testStore: { store }, expect }) => {
      const d = devicesOf(store);
      const user = await d.addUser(0);
      expect(await d.devices.remember({ user, clientAddress: null }, 'passkey')).toBeUndefined();
      expect(await store.audit.list({ userId: user.id, limit: 10 })).toEqual([]);
      expect(await d.devices.forgetAll(user, { actor: 'cli', clientAddress: null })).toBe(0);
    },
  );

  storeTest.concurrent(
    "a device is remembered for the policy's days: the cookie is id and secret, the store and the trail hold neither the secret nor its hash",
    async ({ testStore: { store }, expect }) => {
      const d = devicesOf(store);
      const user = await d.addUser(30);
      const { token, expiresAt } = await d.remember(user);
      const [id = '', secret = ''] = token.split('.');
      expect(secret.length).toBeGreaterThanOrEqual(16);
      expect(expiresAt).toBe(T0 + 30 * DAY);
      const row = await store.rememberedDevices.find(id);
      expect(row).toMatchObject({ userId: user.id, createdAt: T0, expiresAt, forgottenAt: null });
      expect(JSON.stringify(row)).not.toContain(secret);
      const entries = await store.audit.list({ userId: user.id, limit: 10 });
      expect(entries).toMatchObject([
        {
          event: 'device.remembered',
          actor: user.id,
          clientAddress: '198.51.100.7',
          details: { deviceId: id, method: 'passkey', expiresAt: new Date(expiresAt).toISOString() },
        },
      ]);
      expect(JSON.stringify(entries)).not.toContain(secret);
      expect(JSON.stringify(entries)).not.toContain(row?.tokenHash);
    },
  );

  storeTest.concurrent(
    'a cookie is the device of its person only: none, malformed, unknown, another person’s and an altered secret are each refused with why',
    async ({ testStore: { store }, expect }) => {
      const d = devicesOf(store);
      const user = await d.addUser(30);
      const other = await d.addUser(30);
      const { token } = await d.remember(user);
      const [id = '', secret = ''] = token.split('.');
      const altered = `${id}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      const refusals = {
        none: [undefined, ''],
        tampered: ['no-dot-here', `${id}.short`, `${id}.${secret}.more`, altered],
        unknown: [`${newId(T0)}.${secret}`],
      };
      for (const [refusal, cookies] of Object.entries(refusals))
        for (const cookie of cookies)
          expect(await d.devices.check(user.id, cookie), String(cookie)).toEqual({ held: false, refusal });
      expect(await d.devices.check(other.id, token)).toEqual({ held: false, refusal: 'other-user' });
      expect(await d.devices.check(user.id, token)).toEqual({ held: true, deviceId: id });
    },
  );

  storeTest.concurrent(
    'a device is held until the millisecond before it expires, not at it',
    async ({ testStore: { store }, expect }) => {
      const d = devicesOf(store);
      const user = await d.addUser(1);
      const { token } = await d.remember(user);
      d.advance(DAY - 1);
      expect((await d.devices.check(user.id, token)).held).toBe(true);
      d.advance(1);
      expect(await d.devices.check(user.id, token)).toEqual({ held: false, refusal: 'expired' });
    },
  );

  storeTest.concurrent(
    'forgetting ends every device of the person and no other’s, audited with who forgot and how many',
    async ({ testStore: { store }, expect }) => {
      const d = devicesOf(store);
      const user = await d.addUser(30);
      const other = await d.addUser(30);
      const first = await d.remember(user);
      const second = await d.remember(user);
      const others = await d.remember(other);
      d.advance(1000);
      const by = { actor: 'console:agent', clientAddress: '192.0.2.1' };
      expect(await d.devices.forgetAll(user, by)).toBe(2);
      for (const { token } of [first, second])
        expect(await d.devices.check(user.id, token)).toEqual({ held: false, refusal: 'forgotten' });
      expect((await d.devices.check(other.id, others.token)).held).toBe(true);
      expect(await store.audit.list({ userId: user.id, event: 'device.forgotten' })).toMatchObject([
        { actor: 'console:agent', clientAddress: '192.0.2.1', details: { count: 2 }, at: T0 + 1000 },
      ]);
      // Forgotten once: a second time finds nothing left to forget.
      expect(await d.devices.forgetAll(user, by)).toBe(0);
    },
  );

  storeTest.concurrent(
    "a cookie made under the previous secret's key is still held after a rotation, and not once that key is dropped",
    async ({ testStore: { store }, expect }) => {
      const before = devicesOf(store, [PREVIOUS]);
      const user = await before.addUser(30);
      const { token } = await before.remember(user);
      const rotated = devicesOf(store, [CURRENT, PREVIOUS]);
      expect((await rotated.devices.check(user.id, token)).held).toBe(true);
      const dropped = devicesOf(store, [CURRENT]);
      expect(await dropped.devices.check(user.id, token)).toEqual({ held: false, refusal: 'tampered' });
    },
  );
});
