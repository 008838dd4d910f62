import { SEND_TYPE_OF_CHANNEL, type ChannelKey } from '@dea/contract';
import { newId, randomToken } from '../crypto/ids.js';
import type { Store, User, UserSource } from '../store/store.js';
import type { AuditEventName } from './audit-events.js';
import { canonicalAddress } from './recipients.js';
import { disableUser } from './disable-user.js';
import { isTimeZone } from './time-zone.js';

/**
 * A user as a source outside the product has it (the directory, an identity provider over SCIM,
 * an import file), in the product's terms.
 */
export interface SourcedUser {
  source: Exclude<UserSource, 'local'>;
  /** The source's own id of the user; renames keep it. */
  externalId: string;
  username: string;
  fullName: string;
  locale?: string | undefined;
  timeZone?: string | undefined;
  disabled: boolean;
  /** The channel keys this source manages: each one's address, or null to remove it. */
  channels: Partial<Record<ChannelKey, string | null>>;
  /** The product groups this source manages, and which of them the user is in. */
  groups: { managed: readonly string[]; memberOf: readonly string[] };
}

export type ProvisionOutcome = 'created' | 'updated' | 'unchanged';

export interface Provisioned {
  outcome: ProvisionOutcome;
  user: User;
  /** What was left out, each naming the field and why (an address that is none, say). */
  warnings: string[];
}

/** The user cannot be provisioned; nothing was changed. */
export class ProvisionError extends Error {}

/** A user without a password of their own: only their source can say who they are. */
export const NO_LOCAL_PASSWORD = '!';

/**
 * The one rule for users that come from outside: created or brought up to date from what the
 * source says, never overwriting a local user, disabled (sessions ended) when the source says so.
 * Called by the directory's sync and sign-in, SCIM and the import.
 */
export class UserProvisioning {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  async provision(input: SourcedUser, actor: string): Promise<Provisioned> {
    const { store } = this;
    const at = this.now();
    const warnings: string[] = [];
    const byId = await store.users.findByExternalId(input.source, input.externalId);
    const byName = await store.users.findByUsername(input.username);
    if (byName !== undefined && byName.id !== byId?.id) {
      throw new ProvisionError(
        byName.source === input.source
          ? `the user name ${input.username} belongs to another ${input.source} user (${byName.externalId ?? '?'})`
          : `the user name ${input.username} belongs to a ${byName.source} user; remove or rename that one first`,
      );
    }
    const timeZone = input.timeZone === undefined || isTimeZone(input.timeZone) ? input.timeZone : undefined;
    if (timeZone !== input.timeZone) warnings.push(`timeZone: "${input.timeZone}" is not a time zone`);
    const audit = (event: AuditEventName, userId: string, details: Record<string, unknown> = {}) =>
      store.audit.append({ event, userId, actor, details: { source: input.source, ...details } }, at);

    let user = byId;
    let changed = false;
    if (user === undefined) {
      const id = newId(at);
      await store.users.create({
        id,
        username: input.username,
        passwordHash: NO_LOCAL_PASSWORD,
        fullName: input.fullName,
        locale: input.locale ?? 'en',
        timeZone: timeZone ?? null,
        createdAt: at,
        source: input.source,
        externalId: input.externalId,
      });
      await audit('user.created', id, { username: input.username });
      user = await store.users.findById(id);
      if (user === undefined)
        throw new ProvisionError(`the new user ${input.username} could not be read back`);
    } else {
      const changes = {
        ...(user.username !== input.username && { username: input.username }),
        ...(user.fullName !== input.fullName && { fullName: input.fullName }),
        ...(input.locale !== undefined && user.locale !== input.locale && { locale: input.locale }),
        ...(timeZone !== undefined && user.timeZone !== timeZone && { timeZone }),
      };
      if (Object.keys(changes).length > 0) {
        await store.users.update(user.id, changes);
        await audit('user.updated', user.id, { fields: Object.keys(changes) });
        changed = true;
      }
    }
    const created = byId === undefined;
    if (user.disabled !== input.disabled) {
      if (input.disabled) {
        await disableUser(store, user.id, actor, at, { source: input.source });
      } else {
        await store.users.update(user.id, { disabled: false });
        await audit('user.enabled', user.id);
      }
      changed = true;
    }
    changed = (await this.syncChannels(user.id, input, warnings, audit, at)) || changed;
    changed = (await this.syncGroups(user.id, input, audit)) || changed;
    const current = (await store.users.findById(user.id)) as User;
    return { outcome: created ? 'created' : changed ? 'updated' : 'unchanged', user: current, warnings };
  }

  private async syncChannels(
    userId: string,
    input: SourcedUser,
    warnings: string[],
    audit: (event: AuditEventName, userId: string, details?: Record<string, unknown>) => Promise<void>,
    at: number,
  ): Promise<boolean> {
    const { store } = this;
    const existing = new Map(
      (await store.channels.listOfUser(userId)).map((channel) => [channel.key, channel]),
    );
    let changed = false;
    for (const [key, text] of Object.entries(input.channels) as [ChannelKey, string | null][]) {
      const address = text === null ? undefined : canonicalAddress(SEND_TYPE_OF_CHANNEL[key], text);
      if (text !== null && address === undefined)
        warnings.push(`${key}: "${text}" is not a usable address; left out`);
      const current = existing.get(key);
      if (address === undefined) {
        if (current !== undefined && (await store.channels.remove(userId, key))) {
          await audit('channel.removed', userId, { key });
          changed = true;
        }
      } else if (current?.address !== address) {
        await store.channels.set({ id: randomToken(16), userId, key, address, createdAt: at });
        await audit('channel.set', userId, { key });
        changed = true;
      }
    }
    return changed;
  }

  private async syncGroups(
    userId: string,
    input: SourcedUser,
    audit: (event: AuditEventName, userId: string, details?: Record<string, unknown>) => Promise<void>,
  ): Promise<boolean> {
    const { store } = this;
    const current = new Set((await store.groups.listOfUser(userId)).map((group) => group.name));
    const wanted = new Set(input.groups.memberOf);
    let changed = false;
    for (const name of input.groups.managed) {
      if (wanted.has(name) === current.has(name)) continue;
      let group = await store.groups.findByName(name);
      if (group === undefined) {
        // A mapped group that does not exist yet: made without a policy (no codes until one is set).
        group = { id: newId(this.now()), name, priority: 0 };
        await store.groups.create(group);
        await audit('group.created', userId, { group: name });
      }
      if (wanted.has(name)) {
        await store.groups.addMember(group.id, userId);
        await audit('group.member_added', userId, { group: name });
      } else {
        await store.groups.removeMember(group.id, userId);
        await audit('group.member_removed', userId, { group: name });
      }
      changed = true;
    }
    return changed;
  }

  /** A user the source no longer has: disabled, sessions ended; kept for the audit trail. */
  async disableMissing(user: User, actor: string): Promise<boolean> {
    if (user.disabled) return false;
    await disableUser(this.store, user.id, actor, this.now(), {
      source: user.source,
      reason: 'not in source',
    });
    return true;
  }
}
