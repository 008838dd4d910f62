import Value from 'typebox/value';
import type { Groups } from '../domain/identity/groups.js';
import type { ChangeBy } from '../domain/identity/user-ownership.js';
import { RuleError } from '../domain/rule-error.js';
import type { Group, GroupFilterColumn, Store } from '../store/store.js';
import { invalidValue, notFound, ScimError } from './scim-error.js';
import { type AttributeMap, rowFilterOf, rowOrderOf } from './scim-filter.js';
import { applyPatch } from './scim-patch.js';
import { inOneTransaction } from './scim-transaction.js';
import { requireVersion, versionOf } from './scim-versions.js';
import { SCIM, ScimGroupInput, type ScimListQuery, type ScimPatch } from './scim-schemas.js';
import { type Resource, versionOfResource } from './scim-users.js';

/**
 * SCIM's Groups are the product's groups that SCIM owns (source 'scim'): the ones it created and
 * the ones an administrator handed to it (`dea group owner`, or the console). It lists, renames
 * and sets the SCIM members of these only; an operator's group is, to SCIM, no group at all (GET,
 * PUT, PATCH and DELETE answer 404, as for an unknown id), so that a client matching groups by
 * name never adopts one it may not change. Every change goes through the groups module
 * (domain/identity/groups.ts): a group it creates passes the rules of every group and has no
 * policy until an operator gives it one; a change the group's owner keeps from SCIM is refused.
 */
export class ScimGroups {
  constructor(
    private readonly store: Store,
    /** The groups module (identity/groups.ts) over this store. */
    private readonly groups: Groups,
  ) {}

  /**
   * One request's change of the group in one transaction of the store: its row is taken first
   * (another change of the group waits for this one, on any instance) and, with `ifMatch`, its
   * version checked there (RFC 7644 section 3.14), so that of two writers holding the same
   * version only the first changes it; the other is answered 412. `work` is given these groups
   * over that transaction: what it writes and reads is part of it.
   */
  async change<T>(
    id: string,
    ifMatch: string | undefined,
    location: string,
    work: (groups: ScimGroups) => Promise<T>,
  ): Promise<T> {
    return inOneTransaction(this.store, async (store) => {
      const groups = new ScimGroups(store, this.groups.within(store));
      const current = await store.groups.findForChange(id);
      if (ifMatch !== undefined) {
        if (current?.source !== 'scim') throw notFound(`Group ${id}`);
        // The version is of the group and its members, whether or not the answer lists them.
        requireVersion(ifMatch, versionOfResource(await groups.resource(current, location, false)));
      }
      return work(groups);
    });
  }

  async get(id: string): Promise<Group> {
    const group = (await this.store.groups.list()).find(
      (candidate) => candidate.id === id && candidate.source === 'scim',
    );
    if (group === undefined) throw notFound(`Group ${id}`);
    return group;
  }

  /** The groups SCIM owns, or those the filter selects, in the order asked for: evaluated by the store. */
  async list(query: Pick<ScimListQuery, 'filter' | 'sortBy' | 'sortOrder'>): Promise<Group[]> {
    return this.store.groups.listOfSourceWhere(
      'scim',
      query.filter === undefined ? { kind: 'and', filters: [] } : rowFilterOf(query.filter, GROUP_FILTER),
      rowOrderOf(query.sortBy, query.sortOrder, GROUP_FILTER),
    );
  }

  async create(body: unknown, actor: string): Promise<Group> {
    const input = this.checked(body);
    const members = await this.memberIds(input.members);
    return this.groups
      .create(
        { name: input.displayName, priority: 0, members: [...members], externalId: input.externalId ?? null },
        changerOf(actor),
      )
      .catch(asScimError);
  }

  /** PUT, and the result of a PATCH: with `omittedClears`, an externalId left out is cleared. */
  async replace(id: string, body: unknown, actor: string, omittedClears = false): Promise<Group> {
    // The members and the name, then the externalId: one transaction.
    return this.scopedToOneTransaction((groups) => groups.replaced(id, body, actor, omittedClears));
  }

  private async replaced(id: string, body: unknown, actor: string, omittedClears: boolean): Promise<Group> {
    const group = await this.get(id);
    const input = this.checked(body);
    const wanted = await this.memberIds(input.members);
    const scimUsers = await this.scimUserIds();
    const replaced = await this.groups
      .replace(
        group,
        { name: input.displayName, wanted },
        (userId) => scimUsers.has(userId),
        changerOf(actor),
      )
      .catch(asScimError);
    const sent = input.externalId;
    const externalId = sent !== undefined ? sent : omittedClears ? null : (group.externalId ?? null);
    await this.groups.setExternalId(replaced.group, externalId, changerOf(actor)).catch(asScimError);
    // As stored now: its times and externalId as the writes left them.
    return this.get(id);
  }

  async patch(id: string, patch: ScimPatch, actor: string, location: string): Promise<Group> {
    const group = await this.get(id);
    return this.replace(id, applyPatch(await this.resource(group, location, true), patch), actor, true);
  }

  /**
   * A group SCIM created is removed (with its memberships and any policy an operator gave it). A
   * group an administrator handed to SCIM is released: its SCIM users leave it and it is the
   * operators' again (no longer listed to SCIM), its policy and other members kept.
   */
  async remove(id: string, actor: string): Promise<void> {
    // A release is two changes (the SCIM members leave, the owner is set): one transaction, so
    // that a failure between them leaves the group as it was.
    await this.scopedToOneTransaction((scoped) => scoped.removed(id, actor));
  }

  private async removed(id: string, actor: string): Promise<void> {
    const group = await this.get(id);
    if (group.createdBy === 'scim') {
      await this.groups.remove(group, changerOf(actor)).catch(asScimError);
      return;
    }
    const scimUsers = await this.scimUserIds();
    await this.groups
      .setMembers(group, new Set(), (userId) => scimUsers.has(userId), changerOf(actor))
      .catch(asScimError);
    await this.groups.release(group, changerOf(actor)).catch(asScimError);
  }

  /** `work` on these groups over one transaction of the store (the one open, when there is one). */
  private scopedToOneTransaction<T>(work: (groups: ScimGroups) => Promise<T>): Promise<T> {
    return this.store.transaction((store) => work(new ScimGroups(store, this.groups.within(store))));
  }

  /** The Group resource of RFC 7643 section 4.2, its members the SCIM users in it. */
  async resource(group: Group, location: string, withMembers: boolean): Promise<Resource> {
    const memberIds = await this.store.groups.listMembers(group.id);
    const resource: Resource = {
      schemas: [SCIM.group],
      id: group.id,
      ...(group.externalId !== null && group.externalId !== undefined && { externalId: group.externalId }),
      displayName: group.name,
      ...(withMembers && {
        members: (await this.scimMembers(group, memberIds)).map((user) => ({
          value: user.id,
          $ref: `${location.slice(0, location.lastIndexOf('/Groups/'))}/Users/${user.id}`,
          display: user.username,
          type: 'User',
        })),
      }),
    };
    // The version is of the group and all its members, whether or not the answer lists them.
    const { members: _members, ...withoutMembers } = resource;
    return {
      ...resource,
      meta: {
        resourceType: 'Group',
        ...(group.createdAt !== undefined && {
          created: iso(group.createdAt),
          lastModified: iso(group.updatedAt ?? group.createdAt),
        }),
        location,
        version: versionOf(withoutMembers, memberIds),
      },
    };
  }

  private async scimMembers(group: Group, memberIds: readonly string[]) {
    const ids = new Set(memberIds);
    return (await this.store.users.listOfSource('scim')).filter((user) => ids.has(user.id));
  }

  private checked(body: unknown): ScimGroupInput {
    if (!Value.Check(ScimGroupInput, body)) {
      const [first] = Value.Errors(ScimGroupInput, body);
      throw invalidValue(
        `the Group is not valid: ${first === undefined ? 'wrong shape' : `${first.instancePath || '/'} ${first.message}`}`,
      );
    }
    if (!body.schemas.includes(SCIM.group)) throw invalidValue(`a Group names the schema ${SCIM.group}`);
    return body;
  }

  /** The members a client names: each must be one of its users. */
  private async memberIds(members: ScimGroupInput['members']): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const member of members ?? []) {
      if (member.value === undefined) throw invalidValue('a member needs its value (the User id)');
      const user = await this.store.users.findById(member.value);
      if (user?.source !== 'scim') throw invalidValue(`no SCIM User ${member.value} to be a member`);
      ids.add(user.id);
    }
    return ids;
  }

  private async scimUserIds(): Promise<Set<string>> {
    return new Set((await this.store.users.listOfSource('scim')).map((user) => user.id));
  }
}

/** The attributes a filter of Groups may name, and what the store compares for each. */
const GROUP_FILTER: Readonly<Record<string, AttributeMap<GroupFilterColumn>>> = {
  id: { type: 'string', column: 'id', caseExact: true },
  displayname: { type: 'string', column: 'name', caseExact: false },
  externalid: { type: 'string', column: 'external_id', caseExact: true },
  'meta.created': { type: 'dateTime', column: 'created_at' },
  'meta.lastmodified': { type: 'dateTime', column: 'last_modified' },
};

const iso = (at: number): string => new Date(at).toISOString();

const changerOf = (actor: string): ChangeBy => ({ door: 'scim', actor, details: { source: 'scim' } });

/** A refusal of the rules of every group, in SCIM's terms: a taken name is 409 uniqueness. */
function asScimError(error: unknown): never {
  if (!(error instanceof RuleError)) throw error;
  if (error.kind === 'conflict') {
    throw new ScimError(
      409,
      `${error.message}; when it is an operator's group, an administrator may hand it to SCIM (dea group owner <group> scim, or the console's Administration)`,
      'uniqueness',
    );
  }
  if (error.kind === 'missing') throw notFound(error.message);
  // The group's owner keeps this part from SCIM (identity/group-ownership.ts): the message names it.
  if (error.kind === 'owned') throw new ScimError(400, error.message, 'mutability');
  throw invalidValue(error.message);
}
