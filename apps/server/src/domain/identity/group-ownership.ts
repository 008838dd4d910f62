import type { Group, UserSource } from '../../store/store.js';
import { RuleError } from '../rule-error.js';

/** The parts of a group a change touches; 'owner' is handing the group to another source. */
export type GroupPart = 'name' | 'members' | 'policies' | 'owner';

/**
 * Who may change which part of a group, by the group's owner (its `source`, migration 0015): the
 * doors allowed, named as the users' ones are, by their source (user-ownership.ts `ChangeBy`,
 * ADR 0042: 'local' an operator, with the CLI or the console; 'scim' the identity provider; 'ldap'
 * the directory's sync and sign-in; 'import' the bulk import). Removing a group is a change of its name. The members a source manages are its
 * own users only (SCIM's PUT leaves other members in place), so several sources share `members`.
 */
export const GROUP_OWNERSHIP: Readonly<
  Record<UserSource, Readonly<Record<GroupPart, readonly UserSource[]>>>
> = {
  local: { name: ['local'], members: ['local', 'ldap', 'import'], policies: ['local'], owner: ['local'] },
  scim: {
    name: ['scim'],
    members: ['scim', 'local', 'ldap', 'import'],
    policies: ['local'],
    owner: ['local'],
  },
  ldap: { name: ['local'], members: ['local', 'ldap', 'import'], policies: ['local'], owner: ['local'] },
  import: { name: ['local'], members: ['local', 'ldap', 'import'], policies: ['local'], owner: ['local'] },
};

/** Who an administrator may give a group to: an operator, or the identity provider over SCIM. */
export const GROUP_OWNERS = ['local', 'scim'] as const;
export type GroupOwner = (typeof GROUP_OWNERS)[number];
export const isGroupOwner = (owner: string): owner is GroupOwner =>
  (GROUP_OWNERS as readonly string[]).includes(owner);

/** Each source as an operator reads it in a refusal. */
const SOURCE_NAMES: Readonly<Record<UserSource, string>> = {
  local: 'an operator (local: the CLI or the console)',
  scim: 'the identity provider (scim)',
  ldap: 'the directory (ldap)',
  import: 'the import (import)',
};

/**
 * A change of a part of a group that the group's owner keeps from this source: a RuleError of
 * kind 'owned' whose message names the owner, who may make the change, and how an administrator
 * hands the group over.
 */
export class GroupOwnershipError extends RuleError {
  constructor(
    readonly group: Group,
    readonly part: GroupPart,
    readonly door: UserSource,
  ) {
    const allowed = GROUP_OWNERSHIP[group.source][part].map((source) => SOURCE_NAMES[source]).join(' or ');
    super(
      `group "${group.name}" is owned by ${SOURCE_NAMES[group.source]}: its ${part} may be changed only by ${allowed}, not by ${SOURCE_NAMES[door]}` +
        (part === 'name' && (group.source === 'scim' || door === 'scim')
          ? `; an administrator may hand it over with dea group owner "${group.name}" ${door === 'scim' ? 'scim' : 'local'} (or the console's Administration)`
          : ''),
      'owned',
    );
    this.name = 'GroupOwnershipError';
  }
}

/** Refuses, naming the owner, a change of the group's part that this door may not make. */
export function checkGroupOwnership(group: Group, part: GroupPart, door: UserSource): void {
  if (!GROUP_OWNERSHIP[group.source][part].includes(door)) throw new GroupOwnershipError(group, part, door);
}
