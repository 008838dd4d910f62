import {
  CHANNEL_DELIVERY_MODE,
  POLICY_CATEGORY_SELF_SERVICE,
  type ChannelKey,
  usernameOrThrow,
} from '@dea/contract';
import { newChannelReference, newId } from '../crypto/ids.js';
import { hashPassword } from '../crypto/password-hash.js';
import type { Store } from '../store/store.js';

export const DEMO_PASSWORD = 'demo';

export const DEMO_USERS = [
  { username: 'demo', fullName: 'Dana Demo', group: 'Codes on screen', what: 'codes shown on screen' },
  {
    username: 'demo-channel',
    fullName: 'Chris Channel',
    group: 'Codes by channel',
    what: 'codes sent by channel',
  },
  { username: 'demo-off', fullName: 'Olivia Off', group: 'No emergency codes', what: 'codes disabled' },
] as const;

const DEMO_GROUPS = [
  { name: 'Codes on screen', options: { enableECode: true, emergencyCodeDelivery: 'Display' } },
  { name: 'Codes by channel', options: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE } },
  { name: 'No emergency codes', options: { enableECode: false, emergencyCodeDelivery: 'Display' } },
] as const;

/** One channel of every key, so the channel user sees every dropdown of the page. */
export const DEMO_CHANNELS: Record<ChannelKey, string> = {
  mobile: '+49 170 5550112',
  personalMobile: '+49 151 5550134',
  email: 'chris.channel@example.com',
  personalEmail: 'chris@example.org',
  telephone: '+49 30 5550156',
  personalTelephone: '+49 89 5550178',
  twitter: '@chris_channel',
  personalTwitter: '@chrisc',
};

/**
 * Seeds the demo users on the first start of an empty store. The caller decides whether demo
 * data is wanted at all (never on PostgreSQL). Answers whether anything was created.
 */
export async function seedDemoData(store: Store, passwordHashCost: number, now: number): Promise<boolean> {
  if ((await store.users.count()) > 0) return false;
  // The demo password is public: one hash serves the three demo users and keeps the first start short.
  const passwordHash = await hashPassword(DEMO_PASSWORD, passwordHashCost);
  const groupIds = new Map<string, string>();
  for (const group of DEMO_GROUPS) {
    const id = newId(now);
    groupIds.set(group.name, id);
    await store.groups.create({ id, name: group.name, priority: 0 });
    await store.groups.setPolicy(id, POLICY_CATEGORY_SELF_SERVICE, group.options);
  }
  for (const demo of DEMO_USERS) {
    const id = newId(now);
    await store.users.create({
      id,
      username: usernameOrThrow(demo.username),
      passwordHash,
      fullName: demo.fullName,
      locale: 'en',
      createdAt: now,
    });
    await store.groups.addMember(groupIds.get(demo.group) ?? '', id);
    if (demo.username === 'demo-channel') {
      for (const [key, address] of Object.entries(DEMO_CHANNELS)) {
        await store.channels.set({
          id: newChannelReference(),
          userId: id,
          key: key as ChannelKey,
          address,
          createdAt: now,
        });
      }
    }
  }
  await store.audit.append(
    { event: 'demo.seeded', actor: 'system', details: { users: DEMO_USERS.length } },
    now,
  );
  return true;
}

/**
 * The demo users that exist in the store: those the demo seeding created (a real user who happens
 * to be called "demo" on a store never seeded is not one).
 */
export async function demoAccountsIn(store: Store): Promise<string[]> {
  const [seeded] = await store.audit.list({ event: 'demo.seeded', limit: 1 });
  if (seeded === undefined) return [];
  const found = await Promise.all(
    DEMO_USERS.map((demo) => store.users.findByUsername(usernameOrThrow(demo.username))),
  );
  return DEMO_USERS.filter((_, index) => found[index] !== undefined).map((demo) => demo.username);
}
