import { SEND_TYPE_OF_CHANNEL, type ChannelKey, type Username } from '@dea/contract';
import type { Channel, KnownUser, Store, User, UserSource } from '../../store/store.js';
import { canonicalAddress } from '../channels/recipients.js';
import type { PersonChannels } from './channels.js';
import type { Groups } from './groups.js';
import { RuleError } from '../rule-error.js';
import { sourcedTimeZone } from './time-zone.js';
import type { People } from './people.js';
import {
  NO_LOCAL_PASSWORD,
  type PersonFields,
  type PersonProfile,
  ProvisionError,
  provisionedName,
} from './people.js';
import type { ChangeBy } from './user-ownership.js';
import { type CreatedPerson, checkedPeople, createPeople, writePeople } from './people-batch.js';

/**
 * A user as a source outside the product has it (the directory, an identity provider over SCIM,
 * an import file), in the product's terms.
 */
export interface SourcedUser {
  source: Exclude<UserSource, 'local'>;
  /** The source's own id of the user; renames keep it. */
  externalId: string;
  /** As the source spells it: provisioning stores its canonical form (RFC 8265). */
  username: string;
  fullName: string;
  /** null: none (the page's language rule applies); absent: left as it is (a new user's is en). */
  locale?: string | null | undefined;
  /** null: none (DEA_TIME_ZONE); absent: left as it is. */
  timeZone?: string | null | undefined;
  /** Absent: the user's state is left as it is (a new user is enabled). */
  disabled: boolean | undefined;
  /**
   * SCIM's parts of a user: given and family name, and the channel keys of the primary e-mail
   * address and phone number (null: none). Absent: left as they are.
   */
  profile?: PersonProfile | undefined;
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

/** One user of a batch: provisioned, or refused (nothing written for them). */
export type BatchResult = { provisioned: Provisioned } | { refused: ProvisionError };

export {
  NO_LOCAL_PASSWORD,
  ProvisionError,
  provisionedName,
  refuseDirectoryName,
} from './people.js';

/**
 * The one rule for users that come from outside: created or brought up to date from what the
 * source says, never overwriting a local user, disabled (sessions ended) when the source says so.
 * Called by the directory's sync and sign-in, SCIM and the import.
 */
export class UserProvisioning {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    /** The identity module's users, groups and channels: every change of these users goes through them. */
    private readonly identity: { people: People; groups: Groups; channels: PersonChannels },
  ) {}

  /** The users' one way of change (identity/people.ts), which knows the directory's names. */
  get people(): People {
    return this.identity.people;
  }

  /** The same use case inside the caller's transaction (`store`): a batch's, SCIM's request's. */
  within(store: Store): UserProvisioning {
    const { people, groups, channels } = this.identity;
    return new UserProvisioning(store, this.now, {
      people: people.within(store),
      groups: groups.within(store),
      channels,
    });
  }

  /**
   * A batch inside the caller's transaction: the users that are new (neither their id nor their
   * name is anyone's, and the batch names them once) are created together (identity/people-batch.ts:
   * the same rules and audit entries, a few statements for all of them); the others one by one.
   */
  private async provisionInTransaction(
    inputs: readonly SourcedUser[],
    actor: string,
    options: { adoptLocal?: boolean },
  ): Promise<BatchResult[]> {
    const results: (BatchResult | undefined)[] = inputs.map(() => undefined);
    const [first] = inputs;
    const oneSource = first !== undefined && inputs.every((input) => input.source === first.source);
    // What the store has of the batch's ids, read for the whole batch at once: the users it has are
    // compared with it, and those it has not are the candidates for creation together.
    const known = oneSource
      ? await this.store.bulkUsers.known(
          first.source,
          inputs.map((input) => input.externalId),
        )
      : undefined;
    /** Ids whose rows must read the store themselves: one created in this batch, one seen before in it. */
    const readThemselves = new Set<string>();
    if (oneSource && known !== undefined) {
      const candidates = inputs.flatMap((input, index) => (known.has(input.externalId) ? [] : [index]));
      const names = new Map(
        candidates.map((index) => [index, provisionedName((inputs[index] as SourcedUser).username)]),
      );
      const taken =
        candidates.length === 0
          ? new Set<string>()
          : (await this.store.bulkUsers.taken(first.source, [], [...names.values()])).usernames;
      const seenNames = new Set<string>();
      const seenIds = new Set<string>();
      const fresh: number[] = [];
      for (const index of candidates) {
        const input = inputs[index] as SourcedUser;
        const name = names.get(index) as string;
        // New: neither its id nor its name is anyone's, and the batch names them once.
        if (!taken.has(name) && !seenNames.has(name) && !seenIds.has(input.externalId)) fresh.push(index);
        seenNames.add(name);
        seenIds.add(input.externalId);
      }
      if (fresh.length > 0) {
        const by = { door: first.source, actor, details: { source: first.source } };
        const created = await createPeople(
          this.store,
          this.identity,
          by,
          fresh.map((index) => inputs[index] as SourcedUser),
          this.now(),
        );
        for (const [at, index] of fresh.entries()) {
          const { user, warnings } = created[at] as CreatedPerson;
          results[index] = { provisioned: { outcome: 'created', user, warnings } };
          readThemselves.add((inputs[index] as SourcedUser).externalId);
        }
      }
    }
    // The others compared with what was read for the batch (an id twice in a batch: its later rows
    // read their own, after the first one's writes).
    for (const [index, input] of inputs.entries()) {
      if (results[index] !== undefined) continue;
      const stored =
        known === undefined || readThemselves.has(input.externalId)
          ? undefined
          : (known.get(input.externalId) ?? null);
      readThemselves.add(input.externalId);
      results[index] = { provisioned: await this.provision(input, actor, { ...options, stored }) };
    }
    return results as BatchResult[];
  }

  /**
   * Many users of one source provisioned in one transaction of the store (the sync's and the
   * import's batches: one commit, not a dozen, per user), each with the same rule and audit
   * entries as `provision`. When one of them is refused (or the store refuses the batch), the
   * batch is rolled back and its users are provisioned one transaction each, so that only the
   * refused one fails. Answers one result per input, in order.
   */
  async provisionBatch(
    inputs: readonly SourcedUser[],
    actor: string,
    options: { dryRun?: boolean; adoptLocal?: boolean } = {},
  ): Promise<BatchResult[]> {
    if (inputs.length > 1 && options.dryRun !== true) {
      try {
        return await this.store.transaction(async (store) =>
          this.within(store).provisionInTransaction(inputs, actor, options),
        );
      } catch {
        // One at a time below: a refusal is then that user's alone, and any other error is thrown there.
      }
    }
    const results: BatchResult[] = [];
    for (const input of inputs) {
      try {
        results.push({ provisioned: await this.provision(input, actor, options) });
      } catch (error) {
        if (!(error instanceof ProvisionError)) throw error;
        results.push({ refused: error });
      }
    }
    return results;
  }

  /**
   * Creates or brings the user up to date. With `dryRun` nothing is written: the outcome is what
   * would happen. With `adoptLocal` a local user of that name becomes this source's user (keeping
   * their password); without it, a name taken by any other user is refused.
   */
  async provision(
    input: SourcedUser,
    actor: string,
    options: {
      dryRun?: boolean;
      adoptLocal?: boolean;
      mustCreate?: boolean;
      retried?: boolean;
      /** What the store has of this id, read for a batch (null: no user has it); else read here. */
      stored?: KnownUser | null;
    } = {},
  ): Promise<Provisioned> {
    const { store } = this;
    const dryRun = options.dryRun === true;
    const at = this.now();
    const warnings: string[] = [];
    const username = provisionedName(input.username);
    const { stored } = options;
    const byId =
      stored === undefined
        ? await store.users.findByExternalId(input.source, input.externalId)
        : (stored?.user ?? undefined);
    // A user keeps its name: the one found by its id is the one of its name (names are unique).
    const byName = byId?.username === username ? byId : await store.users.findByUsername(username);
    // Read after byId, byName may be the same user created meanwhile by another writer.
    let user =
      byId ??
      (byName?.source === input.source && byName.externalId === input.externalId ? byName : undefined);
    const adopt = user === undefined && byName?.source === 'local' && options.adoptLocal === true;
    if (byName !== undefined && byName.id !== user?.id && !adopt) {
      throw new ProvisionError(
        byName.source === input.source
          ? `the user name ${username} belongs to another ${input.source} user (${byName.externalId ?? '?'}; this one is ${input.externalId}): its entry was replaced at the source (deleted and made again); the new entry is a new person and comes in once the old user is removed (dea user remove ${username}, after checking)`
          : `the user name ${username} belongs to a ${byName.source} user; remove or rename that one first`,
      );
    }
    if (options.mustCreate === true && (user !== undefined || byName !== undefined))
      throw new ProvisionError(`the user ${username} exists already`);
    const timeZone = sourcedTimeZone(input.timeZone, warnings);
    const write = new Writes(store, this.identity, actor, input.source, at, dryRun);

    if (adopt && byName !== undefined) {
      await write.userChange(byName.id, { source: input.source, externalId: input.externalId }, () => ({
        adoptedFrom: 'local',
      }));
      user = { ...byName, source: input.source, externalId: input.externalId };
    }
    // A new user, or a rename, of another source may not take a name the directory has (the
    // identity module refuses it as it writes; a dry run asks here).
    if (dryRun && !adopt && user?.username !== username)
      await this.people.mayTakeName(input.source, username);
    if (user === undefined) {
      if (dryRun) return { outcome: 'created', user: this.planned(input, username, at), warnings };
      let created: CreatedPerson;
      try {
        // A new person as every source's batch makes them (people-batch.ts): the same checks (the
        // directory asked before the transaction opens), then the user, channels and groups in one
        // transaction, and one audit entry.
        const checked = await checkedPeople(this.identity, write.by, [input]);
        [created] = (await store.transaction((inside) =>
          writePeople(inside, this.identity, write.by, checked, at),
        )) as [CreatedPerson];
      } catch (error) {
        if (error instanceof ProvisionError && error.kind !== 'conflict') throw error;
        // Another writer (a second import, a sign-in, an instance's sync) created the user
        // meanwhile: the unique name refused this one; bring theirs up to date instead, once.
        const meanwhile = await store.users.findByExternalId(input.source, input.externalId);
        if (meanwhile !== undefined && options.mustCreate !== true && options.retried !== true)
          return this.provision(input, actor, { ...options, retried: true, stored: undefined });
        if (meanwhile !== undefined || (await store.users.findByUsername(username)) !== undefined)
          throw new ProvisionError(`the user name ${username} was taken meanwhile`);
        throw error;
      }
      return { outcome: 'created', user: created.user, warnings: created.warnings };
    }
    const changes = {
      ...(user.username !== username && { username }),
      ...(user.fullName !== input.fullName && { fullName: input.fullName }),
      ...(input.locale !== undefined && user.locale !== input.locale && { locale: input.locale }),
      ...(timeZone !== undefined && user.timeZone !== timeZone && { timeZone }),
      ...Object.fromEntries(
        Object.entries(input.profile ?? {}).filter(
          ([key, value]) => user[key as keyof PersonProfile] !== value,
        ),
      ),
    };
    let changed = adopt;
    if (Object.keys(changes).length > 0) {
      await write.userChange(user.id, changes);
      changed = true;
    }
    if (input.disabled !== undefined && user.disabled !== input.disabled) {
      await write.disabled(user.id, input.disabled);
      changed = true;
    }
    const known = stored?.user.id === user.id ? stored : undefined;
    changed = (await this.syncChannels(user.id, input, warnings, write, known?.channels)) || changed;
    changed = (await this.syncGroups(user.id, input, write, known?.groups)) || changed;
    // Read back only what changed: an unchanged user is the one read.
    const current = dryRun || !changed ? user : ((await store.users.findById(user.id)) ?? user);
    return { outcome: changed ? 'updated' : 'unchanged', user: current, warnings };
  }

  /** The user a dry run would create, as far as it can be told without writing. */
  private planned(input: SourcedUser, username: Username, at: number): User {
    return {
      id: '',
      username,
      passwordHash: NO_LOCAL_PASSWORD,
      fullName: input.fullName,
      locale: input.locale === undefined ? 'en' : input.locale,
      disabled: input.disabled === true,
      createdAt: at,
      lastLoginAt: null,
      currentLoginAt: null,
      timeZone: input.timeZone ?? null,
      source: input.source,
      externalId: input.externalId,
      givenName: input.profile?.givenName ?? null,
      familyName: input.profile?.familyName ?? null,
      primaryEmail: input.profile?.primaryEmail ?? null,
      primaryPhone: input.profile?.primaryPhone ?? null,
      displayName: input.profile?.displayName ?? null,
      formattedName: input.profile?.formattedName ?? null,
      updatedAt: null,
    };
  }

  private async syncChannels(
    userId: string,
    input: SourcedUser,
    warnings: string[],
    write: Writes,
    known?: readonly Channel[],
  ): Promise<boolean> {
    const existing = new Map(
      (known ?? (await this.store.channels.listOfUser(userId))).map((channel) => [channel.key, channel]),
    );
    let changed = false;
    for (const [key, text] of Object.entries(input.channels) as [ChannelKey, string | null][]) {
      const address = text === null ? undefined : canonicalAddress(SEND_TYPE_OF_CHANNEL[key], text);
      if (text !== null && address === undefined)
        warnings.push(`${key}: "${text}" is not a usable address; left out`);
      const current = existing.get(key);
      if (address === undefined) {
        if (current !== undefined) {
          await write.channelRemoved(userId, key);
          changed = true;
        }
      } else if (current?.address !== address) {
        await write.channelSet(userId, key, address);
        changed = true;
      }
    }
    return changed;
  }

  private async syncGroups(
    userId: string,
    input: SourcedUser,
    write: Writes,
    known?: readonly string[],
  ): Promise<boolean> {
    const { store } = this;
    const current = new Set(known ?? (await store.groups.listOfUser(userId)).map((group) => group.name));
    const wanted = new Set(input.groups.memberOf);
    let changed = false;
    for (const name of input.groups.managed) {
      if (wanted.has(name) === current.has(name)) continue;
      await write.membership(userId, name, wanted.has(name));
      changed = true;
    }
    return changed;
  }

  /**
   * A user the source no longer has: disabled, sessions ended, and out of the groups the source
   * manages (`managedGroups`: the directory's mapped groups), audited once for all of them; kept
   * for the audit trail. Should the source have them again, provisioning enables them and puts
   * them back into its groups.
   */
  async disableMissing(
    user: User,
    actor: string,
    options: { dryRun?: boolean; managedGroups?: readonly string[] } = {},
  ): Promise<boolean> {
    if (user.disabled) return false;
    const write = new Writes(
      this.store,
      this.identity,
      actor,
      user.source,
      this.now(),
      options.dryRun === true,
    );
    await write.disabled(user.id, true, { reason: 'not in source' });
    if (options.managedGroups !== undefined && options.managedGroups.length > 0)
      await write.leftGroups(user.id, options.managedGroups, { reason: 'not in source' });
    return true;
  }
}

/** The writes of one provisioning, each audited; in a dry run, none of them. */
class Writes {
  /** The user's own changes go through the identity module as this source's. */
  readonly by: ChangeBy;

  constructor(
    private readonly store: Store,
    private readonly identity: { people: People; groups: Groups; channels: PersonChannels },
    private readonly actor: string,
    private readonly source: UserSource,
    private readonly at: number,
    private readonly dryRun: boolean,
  ) {
    this.by = { door: source, actor, details: { source } };
  }

  async userChange(
    userId: string,
    changes: PersonFields,
    details?: () => Record<string, unknown>,
  ): Promise<void> {
    if (this.dryRun) return;
    await this.identity.people.update(this.by, userId, changes, details);
  }

  async disabled(userId: string, disabled: boolean, details: Record<string, unknown> = {}): Promise<void> {
    if (this.dryRun) return;
    const by = { ...this.by, details: { ...this.by.details, ...details } };
    const { people } = this.identity;
    await (disabled ? people.disable(by, userId) : people.enable(by, userId));
  }

  async channelSet(userId: string, key: ChannelKey, address: string): Promise<void> {
    if (this.dryRun) return;
    await this.identity.channels.setIn(this.store, this.by, { id: userId }, key, address, this.at);
  }

  async channelRemoved(userId: string, key: ChannelKey): Promise<void> {
    if (this.dryRun) return;
    await this.identity.channels.removeIn(this.store, this.by, { id: userId }, key, this.at);
  }

  async leftGroups(
    userId: string,
    names: readonly string[],
    details: Record<string, unknown>,
  ): Promise<void> {
    if (this.dryRun) return;
    const changer = { door: this.source, actor: this.actor, details: { source: this.source, ...details } };
    try {
      await this.identity.groups.within(this.store, this.at).leaveAll(userId, names, changer);
    } catch (error) {
      if (error instanceof RuleError) throw new ProvisionError(`groups: ${error.message}`, 'invalid');
      throw error;
    }
  }

  async membership(userId: string, groupName: string, member: boolean): Promise<void> {
    if (this.dryRun) return;
    // Through the groups module (identity/groups.ts): a mapped group that does not exist yet is
    // made by the rules of every group, owned by this source.
    const groups = this.identity.groups.within(this.store, this.at);
    const changer = { door: this.source, actor: this.actor, details: { source: this.source } };
    try {
      await groups.changeMember(await groups.named(groupName, changer), userId, member, changer);
    } catch (error) {
      if (error instanceof RuleError)
        throw new ProvisionError(`group "${groupName}": ${error.message}`, 'invalid');
      throw error;
    }
  }
}
