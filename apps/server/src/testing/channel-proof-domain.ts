/**
 * What the tests of channels people register share (channel-proof.test.ts,
 * channel-proof-rules.test.ts): the domain composed over a test store, people, their outbox.
 */
import {
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_SELF_SERVICE,
  type ChannelKey,
} from '@dea/contract';
import { usernameOrThrow } from '@dea/contract';
import { newId, randomToken } from '../crypto/ids.js';
import { composedDomain } from './composed-domain.js';
import type { OutboxMessage, Store, User } from '../store/store.js';

export const CLIENT = '198.51.100.7';
export const CHANNEL_POLICY = { enableECode: true, emergencyCodeDelivery: 'Channel' };
export const BY_OPERATOR = { door: 'local', actor: 'cli' } as const;

export interface Person {
  id: string;
  username: string;
}

/**
 * The domain over the test's store, composed as the server composes it (composition.ts), on a
 * clock the test moves, opening the outbox's messages with `openMessage`; `createUser` makes a person in a group of their own with this Self
 * Service policy and these channels from their source.
 */
/** How a test opens a sealed message of the outbox (delivery/outbox-provider.ts, which domain/ may not import). */
export type OpenMessage = (
  sealKeys: readonly Buffer[],
  message: OutboxMessage,
) => { recipient: string; subject: string; text: string };

export async function domainOn(
  store: Store,
  openMessage: OpenMessage,
  settings: Record<string, string> = {},
) {
  const { services, clock } = await composedDomain(store, settings);
  async function createUser(
    options: { policy?: Record<string, unknown>; channels?: Partial<Record<ChannelKey, string>> } = {},
  ): Promise<Person> {
    const now = clock.now();
    const person = { id: newId(now), username: usernameOrThrow(`user-${randomToken(6)}`) };
    await store.users.create({
      id: person.id,
      username: person.username,
      passwordHash: 'hash',
      fullName: `Test ${person.username}`,
      locale: 'en',
      createdAt: now,
    });
    const groupId = newId(now);
    await store.groups.create({ id: groupId, name: `group-${person.username}`, priority: 0 });
    await store.groups.setPolicy(
      groupId,
      POLICY_CATEGORY_SELF_SERVICE,
      options.policy ?? { enableECode: true, emergencyCodeDelivery: 'Display' },
    );
    await store.groups.addMember(groupId, person.id);
    for (const [key, address] of Object.entries(options.channels ?? {}))
      await store.channels.set({
        id: randomToken(16),
        userId: person.id,
        key: key as ChannelKey,
        address,
        createdAt: now,
      });
    return person;
  }
  return { services, clock, createUser, openMessage };
}

export type Domain = Awaited<ReturnType<typeof domainOn>>;

/** The messages the outbox holds for a user, opened, oldest first. */
export async function outbox(
  t: Domain,
  userId: string,
): Promise<{ recipient: string; subject: string; text: string }[]> {
  const messages = await t.services.store.outbox.list(1000, userId);
  return messages.reverse().map((message) => t.openMessage([t.services.keys.seal], message));
}

/** The proof code last sent to an address. */
export async function proofCodeSentTo(t: Domain, userId: string, recipient: string): Promise<string> {
  const sent = (await outbox(t, userId)).filter((message) => message.recipient === recipient).at(-1);
  const code = /confirmation code is (\d{8})/.exec(sent?.text ?? '')?.[1];
  if (code === undefined) throw new Error(`no proof code sent to ${recipient}`);
  return code;
}

export async function userOf(t: Domain, user: Person): Promise<User> {
  const found = await t.services.store.users.findById(user.id);
  if (found === undefined) throw new Error('no such user');
  return found;
}

export async function setRegistrationPolicy(
  t: Domain,
  user: Person,
  options: Record<string, unknown>,
): Promise<void> {
  const group = (await t.services.store.groups.listOfUser(user.id))[0]!;
  await t.services.groupPolicies.setPolicy(group, POLICY_CATEGORY_CHANNEL_REGISTRATION, options, 'cli');
}

export const request = (user: User) => ({
  user,
  actor: user.id,
  clientAddress: CLIENT,
  origin: 'owner' as const,
});

export async function start(t: Domain, user: User, key: ChannelKey, address: string) {
  return t.services.channelProofs.start({ ...request(user), key, address, origin: 'owner' });
}

export async function auditEvents(t: Domain, userId: string, event: string) {
  return (await t.services.store.audit.list({ userId, event, limit: 1000 })).filter(
    (entry) => entry.event === event,
  );
}
