import { newId } from '../../crypto/ids.js';
import type { AuditedGroupWrite, Group, NewAuditEntry, Store } from '../../store/store.js';
import { revokeCodesIfSwitchedOff } from '../codes/codes-switched-off.js';
import { RuleError } from '../rule-error.js';
import {
  checkGroupOwnership,
  GROUP_OWNERS,
  GroupOwnershipError,
  type GroupPart,
  isGroupOwner,
} from './group-ownership.js';
import type { ChangeBy } from './user-ownership.js';

export const MAX_GROUP_NAME = 100;
export const MAX_GROUP_PRIORITY = 9_999_999;

/** What a change of members did: the users who joined and who left. */
export interface MembersChanged {
  added: string[];
  removed: string[];
}

/** A group's name as stored (trimmed), or the rule it breaks. */
export function checkedGroupName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_GROUP_NAME)
    throw new RuleError(`the name must be 1 to ${MAX_GROUP_NAME} characters`);
  if (/\p{Cc}/u.test(trimmed))
    throw new RuleError('the name must not hold a control character (a line break, a tab)');
  return trimmed;
}

function checkedPriority(priority: number): number {
  if (!Number.isInteger(priority) || Math.abs(priority) > MAX_GROUP_PRIORITY)
    throw new RuleError(
      `the priority must be a whole number from -${MAX_GROUP_PRIORITY} to ${MAX_GROUP_PRIORITY}`,
    );
  return priority;
}

const nameTaken = (name: string): RuleError =>
  new RuleError(`a group named "${name}" already exists`, 'conflict');

/**
 * Every change of a group or a membership, from every door (the CLI, the console, SCIM, the
 * directory's sync and sign-in, the import): the rules of names and priorities, the ownership of
 * group-ownership.ts, and each change written with its audit entry in one store transaction
 * (`store.groups.write`). Each operation answers what changed. A change of members that leaves a
 * user without codes revokes their unused codes (codes-switched-off.ts), after it is written.
 */
export class Groups {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * The same use case inside the caller's transaction (`store`), its changes stamped `at` when
   * given (a provisioning's or a batch's one time).
   */
  within(store: Store, at?: number): Groups {
    return new Groups(store, at === undefined ? this.now : () => at);
  }

  /** The group as stored now, or a 'missing' refusal. */
  async byId(id: string): Promise<Group> {
    const group = (await this.store.groups.list()).find((each) => each.id === id);
    if (group === undefined) throw new RuleError(`no group with the id ${id}`, 'missing');
    return group;
  }

  /**
   * A new group owned by the source that makes it, with these first members, all in one
   * transaction (SCIM's POST with members).
   */
  async create(
    input: { name: string; priority: number; members?: readonly string[]; externalId?: string | null },
    changer: ChangeBy,
  ): Promise<Group> {
    const name = checkedGroupName(input.name);
    const priority = checkedPriority(input.priority);
    if (await this.store.groups.findByName(name)) throw nameTaken(name);
    const at = this.now();
    const group: Group = {
      id: newId(at),
      name,
      priority,
      source: changer.door,
      externalId: input.externalId ?? null,
      createdBy: changer.door,
      createdAt: at,
      updatedAt: at,
    };
    const members = [...new Set(input.members ?? [])];
    await this.written(
      [
        {
          change: { kind: 'create', group },
          audit: this.entry(changer, 'group.created', { group: name, priority, source: group.source }),
        },
        ...members.map((userId) => this.membership(group, userId, true, changer)),
      ],
      at,
      name,
    );
    await this.revokeIfSwitchedOff(group, members, changer, at);
    return group;
  }

  /**
   * The group of this name, made by the rules (priority 0, no policy: no codes until an operator
   * gives it one) when there is none; one that another writer made meanwhile is taken.
   */
  async named(name: string, changer: ChangeBy): Promise<Group> {
    const found = await this.store.groups.findByName(name.trim());
    if (found !== undefined) return found;
    try {
      return await this.create({ name, priority: 0 }, changer);
    } catch (error) {
      const meanwhile =
        error instanceof RuleError && error.kind === 'conflict'
          ? await this.store.groups.findByName(name.trim())
          : undefined;
      if (meanwhile === undefined) throw error;
      return meanwhile;
    }
  }

  /** The group under a new name, checked as a new group's; answers the group as it is now. */
  async rename(group: Group, name: string, changer: ChangeBy): Promise<Group> {
    return (await this.update(group, { name, joining: [], leaving: [] }, changer)).group;
  }

  /**
   * SCIM's PUT: the group's name, and the members `changer` manages become `wanted` (of the
   * current members, those `manages` says are its own and not wanted leave; the wanted who are
   * not members join), in one transaction.
   */
  async replace(
    group: Group,
    input: { name: string; wanted: ReadonlySet<string> },
    manages: (userId: string) => boolean,
    changer: ChangeBy,
  ): Promise<{ group: Group } & MembersChanged> {
    return this.update(
      group,
      { name: input.name, ...(await this.moves(group, input.wanted, manages)) },
      changer,
    );
  }

  /**
   * Removes the group with its policies and memberships; members it leaves without codes lose
   * their unused codes. Answers whether it was removed now (false: already gone).
   */
  async remove(group: Group, changer: ChangeBy): Promise<boolean> {
    this.owned(group, 'name', changer);
    const members = await this.store.groups.listMembers(group.id);
    const at = this.now();
    const [removed] = await this.written(
      [
        {
          change: { kind: 'remove', groupId: group.id, ifSource: group.source },
          audit: this.entry(changer, 'group.removed', {
            group: group.name,
            source: group.source,
            members: members.length,
          }),
        },
      ],
      at,
    );
    if (removed !== true) {
      if (!(await this.store.groups.list()).some((each) => each.id === group.id)) return false;
      await this.changedMeanwhile(group, 'name', changer);
    }
    await this.revokeIfSwitchedOff(group, members, changer, at);
    return true;
  }

  /**
   * Hands the group to SCIM ('scim': the identity provider may then rename it, set its SCIM
   * members and list it) or takes it back ('local'). Answers the group as it is now.
   */
  async setOwner(group: Group, owner: string, changer: ChangeBy): Promise<Group> {
    if (!isGroupOwner(owner)) throw new RuleError(`the owner must be ${GROUP_OWNERS.join(' or ')}`);
    this.owned(group, 'owner', changer);
    if (owner === group.source) return group;
    const [changed] = await this.written(
      [
        {
          change: { kind: 'setSource', groupId: group.id, source: owner, ifSource: group.source },
          audit: this.entry(changer, 'group.owner_set', { group: group.name, from: group.source, owner }),
        },
      ],
      this.now(),
    );
    if (changed !== true) await this.changedMeanwhile(group, 'owner', changer);
    return { ...group, source: owner };
  }

  /**
   * The source that owns the group gives it back to the operators ('local'): it is no longer
   * listed to that source, and keeps its policies and members. SCIM's DELETE of a group an
   * administrator handed to it. Answers the group as it is now.
   */
  async release(group: Group, changer: ChangeBy): Promise<Group> {
    if (group.source !== changer.door || group.source === 'local')
      throw new GroupOwnershipError(group, 'owner', changer.door);
    const [changed] = await this.written(
      [
        {
          change: { kind: 'setSource', groupId: group.id, source: 'local', ifSource: group.source },
          audit: this.entry(changer, 'group.owner_set', {
            group: group.name,
            from: group.source,
            owner: 'local',
            released: true,
          }),
        },
      ],
      this.now(),
    );
    if (changed !== true) await this.changedMeanwhile(group, 'owner', changer);
    return { ...group, source: 'local' };
  }

  /** The source's own id of the group (SCIM's externalId), changed by whoever owns its name. */
  async setExternalId(group: Group, externalId: string | null, changer: ChangeBy): Promise<Group> {
    this.owned(group, 'name', changer);
    if ((group.externalId ?? null) === externalId) return group;
    const [changed] = await this.written(
      [
        {
          change: { kind: 'setExternalId', groupId: group.id, externalId, ifSource: group.source },
          audit: this.entry(changer, 'group.external_id_set', {
            group: group.name,
            from: group.externalId ?? null,
            externalId,
          }),
        },
      ],
      this.now(),
    );
    if (changed !== true) await this.changedMeanwhile(group, 'name', changer);
    return { ...group, externalId };
  }

  /**
   * Stores the options of the group's policy of a category (checked by group-policies.ts),
   * audited with the options changed; codes the policy switches off are revoked.
   */
  async setPolicy(
    group: Group,
    policy: { category: string; options: Record<string, unknown>; changes: Record<string, unknown> },
    changer: ChangeBy,
    revokeSwitchedOff: boolean,
  ): Promise<void> {
    this.owned(group, 'policies', changer);
    const at = this.now();
    await this.written(
      [
        {
          change: {
            kind: 'setPolicy',
            groupId: group.id,
            category: policy.category,
            options: policy.options,
          },
          audit: this.entry(changer, 'policy.set', {
            group: group.name,
            category: policy.category,
            options: policy.changes,
          }),
        },
      ],
      at,
    );
    if (revokeSwitchedOff)
      await this.revokeIfSwitchedOff(
        group,
        await this.store.groups.listMembers(group.id),
        changer,
        at,
        'policy set',
      );
  }

  /** The user joins (member) or leaves the group; answers whether that changed anything now. */
  async changeMember(group: Group, userId: string, member: boolean, changer: ChangeBy): Promise<boolean> {
    const moves = member ? { joining: [userId], leaving: [] } : { joining: [], leaving: [userId] };
    const { added, removed } = await this.update(group, moves, changer);
    return added.length + removed.length > 0;
  }

  /**
   * The user leaves those of these groups they are in, together, as a source that no longer has
   * them takes back the memberships it gave: one audit entry (`user.groups_left`, details.groups)
   * for all of them, written with them in one transaction. Answers the names of the groups left.
   */
  async leaveAll(userId: string, names: readonly string[], changer: ChangeBy): Promise<string[]> {
    const wanted = new Set(names);
    return this.store.transaction(async (store) => {
      const groups = (await store.groups.listOfUser(userId)).filter((group) => wanted.has(group.name));
      for (const group of groups) this.owned(group, 'members', changer);
      if (groups.length === 0) return [];
      const at = this.now();
      const changed = await store.groups.write(
        groups.map((group) => ({
          change: { kind: 'removeMember', groupId: group.id, userId },
          audit: undefined,
        })),
        at,
      );
      const left = groups.filter((_, index) => changed[index] === true).map((group) => group.name);
      if (left.length > 0)
        await store.audit.append(
          { ...this.entry(changer, 'user.groups_left', { groups: left }), userId },
          at,
        );
      return left;
    });
  }

  /** The members `changer` manages become `wanted`, as `replace` sets them, the name kept. */
  async setMembers(
    group: Group,
    wanted: ReadonlySet<string>,
    manages: (userId: string) => boolean,
    changer: ChangeBy,
  ): Promise<MembersChanged> {
    return this.update(group, await this.moves(group, wanted, manages), changer);
  }

  private async moves(
    group: Group,
    wanted: ReadonlySet<string>,
    manages: (userId: string) => boolean,
  ): Promise<{ joining: string[]; leaving: string[] }> {
    const current = new Set(await this.store.groups.listMembers(group.id));
    return {
      joining: [...wanted].filter((userId) => !current.has(userId)),
      leaving: [...current].filter((userId) => manages(userId) && !wanted.has(userId)),
    };
  }

  /**
   * A new name (when given) and members joining and leaving, in one transaction: each change
   * audited once, of two writers at once by the one whose write changed the row.
   */
  private async update(
    group: Group,
    change: { name?: string; joining: readonly string[]; leaving: readonly string[] },
    changer: ChangeBy,
  ): Promise<{ group: Group } & MembersChanged> {
    const name = change.name === undefined ? group.name : checkedGroupName(change.name);
    if (name !== group.name || change.name !== undefined) this.owned(group, 'name', changer);
    const moves = [
      ...change.joining.map((userId) => ({ userId, member: true })),
      ...change.leaving.map((userId) => ({ userId, member: false })),
    ];
    if (moves.length > 0) this.owned(group, 'members', changer);
    const renaming = name !== group.name;
    if (renaming && (await this.store.groups.findByName(name))) throw nameTaken(name);
    const now = { ...group, name };
    if (!renaming && moves.length === 0) return { group: now, added: [], removed: [] };
    const at = this.now();
    const rename: AuditedGroupWrite[] = renaming
      ? [
          {
            change: { kind: 'rename', groupId: group.id, name, ifSource: group.source },
            audit: this.entry(changer, 'group.renamed', {
              source: group.source,
              from: group.name,
              group: name,
            }),
          },
        ]
      : [];
    const changed = await this.written(
      [...rename, ...moves.map(({ userId, member }) => this.membership(now, userId, member, changer))],
      at,
      renaming ? name : undefined,
    );
    if (renaming && changed[0] !== true) await this.changedMeanwhile(group, 'name', changer);
    const done = moves.filter((_, index) => changed[index + rename.length] === true);
    await this.revokeIfSwitchedOff(
      now,
      done.map(({ userId }) => userId),
      changer,
      at,
    );
    return {
      group: now,
      added: done.filter(({ member }) => member).map(({ userId }) => userId),
      removed: done.filter(({ member }) => !member).map(({ userId }) => userId),
    };
  }

  private membership(group: Group, userId: string, member: boolean, changer: ChangeBy): AuditedGroupWrite {
    return {
      change: { kind: member ? 'addMember' : 'removeMember', groupId: group.id, userId },
      audit: {
        ...this.entry(changer, member ? 'group.member_added' : 'group.member_removed', { group: group.name }),
        userId,
      },
    };
  }

  private entry(
    changer: ChangeBy,
    event: NewAuditEntry['event'],
    details: Record<string, unknown>,
  ): NewAuditEntry {
    return { event, actor: changer.actor, details: { ...changer.details, ...details } };
  }

  private owned(group: Group, part: GroupPart, changer: ChangeBy): void {
    checkGroupOwnership(group, part, changer.door);
  }

  /**
   * The writes in one transaction; a name another group took meanwhile (the store's unique name
   * refused it) is answered as the taken name it is.
   */
  private async written(writes: readonly AuditedGroupWrite[], at: number, name?: string): Promise<boolean[]> {
    try {
      return await this.store.groups.write(writes, at);
    } catch (error) {
      if (name !== undefined && (await this.store.groups.findByName(name))) throw nameTaken(name);
      throw error;
    }
  }

  /** A conditional write found the group gone or given to another owner since it was read. */
  private async changedMeanwhile(group: Group, part: GroupPart, changer: ChangeBy): Promise<never> {
    const now = await this.byId(group.id);
    checkGroupOwnership(now, part, changer.door);
    throw new RuleError(
      `group "${group.name}" was changed meanwhile (its owner is now ${now.source}); try again`,
      'conflict',
    );
  }

  private async revokeIfSwitchedOff(
    group: Group,
    userIds: readonly string[],
    changer: ChangeBy,
    at: number,
    cause: 'membership changed' | 'policy set' = 'membership changed',
  ): Promise<void> {
    if (userIds.length === 0) return;
    await revokeCodesIfSwitchedOff(this.store, userIds, {
      actor: changer.actor,
      at,
      cause,
      details: { group: group.name },
    });
  }
}
