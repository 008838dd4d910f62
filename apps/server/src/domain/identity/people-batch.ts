import { SEND_TYPE_OF_CHANNEL, type ChannelKey } from '@dea/contract';
import { newChannelReference, newId } from '../../crypto/ids.js';
import type { NewAuditEntry, NewUsersBatch, Store, User } from '../../store/store.js';
import { canonicalAddress } from '../channels/recipients.js';
import { RuleError } from '../rule-error.js';
import { sourcedTimeZone } from './time-zone.js';
import type { SourcedUser } from './provision-user.js';
import { checkGroupOwnership } from './group-ownership.js';
import type { Groups } from './groups.js';
import type { People } from './people.js';
import { NO_LOCAL_PASSWORD, ProvisionError } from './people.js';
import type { ChangeBy } from './user-ownership.js';

/** A new user of a batch as written: the user, and what was left out of them. */
export interface CreatedPerson {
  user: User;
  warnings: string[];
}

/**
 * New users of one source created together, inside the caller's store transaction: each checked
 * by the rules `People.create`, the channel rules and the groups' ownership apply to one user (a
 * refusal throws, and the caller's batch goes back to one user at a time), then written with a
 * few multi-row statements (store/sql/bulk-users.ts). The one way a source's new person is made,
 * a batch of them or one (provision-user.ts). Each is audited once (ADR 0044): `user.created`
 * with the channel keys and the groups the source gave them, and `user.disabled` for a user the
 * source has disabled. A new user has no codes or sessions, so nothing is revoked or ended.
 */
export async function createPeople(
  store: Store,
  identity: { people: People; groups: Groups },
  by: ChangeBy,
  inputs: readonly SourcedUser[],
  at: number,
): Promise<CreatedPerson[]> {
  return writePeople(store, identity, by, await checkedPeople(identity, by, inputs), at);
}

/** A new user of a source as `People.create`'s check leaves them, with what was left out so far. */
export interface CheckedPerson {
  input: SourcedUser;
  fields: Awaited<ReturnType<People['checkedNew']>>;
  warnings: string[];
}

/**
 * The one check of each new user (People.create's), after the source's time zone rule. It may ask
 * the directory whether it has the name: a caller that can do it before opening its transaction
 * does (provision-user.ts), so that no transaction waits on a directory that hangs.
 */
export async function checkedPeople(
  identity: { people: People },
  by: ChangeBy,
  inputs: readonly SourcedUser[],
): Promise<CheckedPerson[]> {
  const checked: CheckedPerson[] = [];
  for (const input of inputs) {
    const warnings: string[] = [];
    const fields = await identity.people.checkedNew(by.door, {
      ...input,
      timeZone: sourcedTimeZone(input.timeZone, warnings),
    });
    checked.push({ input, fields, warnings });
  }
  return checked;
}

/** Checked new users written together, inside the caller's store transaction (createPeople). */
export async function writePeople(
  store: Store,
  identity: { groups: Groups },
  by: ChangeBy,
  people: readonly CheckedPerson[],
  at: number,
): Promise<CreatedPerson[]> {
  const source = by.door;
  const batch: NewUsersBatch = { users: [], channels: [], memberships: [], audit: [] };
  const groups = identity.groups.within(store, at);
  const changer = { door: source, actor: by.actor, details: { source } };
  const groupNamed = new Map<string, Awaited<ReturnType<Groups['named']>>>();
  const audit = (event: NewAuditEntry['event'], userId: string, details: Record<string, unknown>) =>
    batch.audit.push({ event, userId, actor: by.actor, details: { ...by.details, ...details } });
  const created: CreatedPerson[] = [];
  for (const { input, fields, warnings } of people) {
    const { username, fullName, locale, timeZone } = fields;
    const id = newId(at);
    const channelKeys: ChannelKey[] = [];
    const groupNames: string[] = [];
    for (const [key, text] of Object.entries(input.channels) as [ChannelKey, string | null][]) {
      if (text === null) continue;
      const address = canonicalAddress(SEND_TYPE_OF_CHANNEL[key], text);
      if (address === undefined) {
        warnings.push(`${key}: "${text}" is not a usable address; left out`);
        continue;
      }
      batch.channels.push({ id: newChannelReference(), userId: id, key, address, createdAt: at });
      channelKeys.push(key);
    }
    const wanted = new Set(input.groups.memberOf);
    for (const name of new Set(input.groups.managed)) {
      if (!wanted.has(name)) continue;
      let group = groupNamed.get(name);
      try {
        group ??= await groups.named(name, changer);
        checkGroupOwnership(group, 'members', source);
      } catch (error) {
        if (error instanceof RuleError)
          throw new ProvisionError(`group "${name}": ${error.message}`, 'invalid');
        throw error;
      }
      groupNamed.set(name, group);
      batch.memberships.push({ groupId: group.id, userId: id });
      groupNames.push(group.name);
    }
    // One entry for the person and what their source gave them, not one per address and group.
    audit('user.created', id, {
      username,
      ...(channelKeys.length > 0 && { channels: channelKeys }),
      ...(groupNames.length > 0 && { groups: groupNames }),
    });
    if (input.disabled === true) audit('user.disabled', id, { sessionsEnded: 0 });
    const user: User = {
      id,
      username,
      passwordHash: NO_LOCAL_PASSWORD,
      fullName,
      locale,
      disabled: input.disabled === true,
      createdAt: at,
      lastLoginAt: null,
      currentLoginAt: null,
      timeZone,
      source,
      externalId: input.externalId,
      givenName: input.profile?.givenName ?? null,
      familyName: input.profile?.familyName ?? null,
      primaryEmail: input.profile?.primaryEmail ?? null,
      primaryPhone: input.profile?.primaryPhone ?? null,
      displayName: input.profile?.displayName ?? null,
      formattedName: input.profile?.formattedName ?? null,
      updatedAt: channelKeys.length > 0 || input.disabled === true ? at : null,
    };
    batch.users.push(user);
    created.push({ user, warnings });
  }
  await store.bulkUsers.createMany(batch, at);
  return created;
}
