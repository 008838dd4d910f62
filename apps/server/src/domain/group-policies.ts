import {
  CHANNEL_DELIVERY_MODE,
  CONSOLE_ISSUER_ROLES,
  HelpDeskPolicyOptions,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  PolicyOptions,
} from '@dea/contract';
import Value from 'typebox/value';
import { newId } from '../crypto/ids.js';
import type { Group, Store, UserSource } from '../store/store.js';
import { revokeCodesIfSwitchedOff } from './codes-switched-off.js';
import { RuleError } from './rule-error.js';

export type PolicyName = keyof PolicyOptions;
export const POLICY_NAMES = Object.keys(PolicyOptions.properties) as PolicyName[];
export const DELIVERY_MODES: readonly string[] = [CHANNEL_DELIVERY_MODE, 'Display'];

/**
 * Why a value cannot be this emergency policy option, in words that follow the option's name
 * ("must be a whole number from 6 to 64"); undefined when it can.
 */
export function policyOptionProblem(name: PolicyName, value: unknown): string | undefined {
  const schema = PolicyOptions.properties[name] as { type?: string; minimum?: number; maximum?: number };
  if (schema.type === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false';
  if (schema.type === 'integer') {
    return Value.Check(PolicyOptions.properties[name], value)
      ? undefined
      : `must be a whole number from ${schema.minimum} to ${schema.maximum}`;
  }
  if (typeof value !== 'string') return 'must be text';
  if (name === 'emergencyCodeDelivery' && !DELIVERY_MODES.includes(value))
    return `must be ${DELIVERY_MODES.join(' or ')}`;
  if (name === 'codeAlphabet') {
    if (!Value.Check(PolicyOptions.properties.codeAlphabet, value) || /\s/.test(value))
      return 'must be 10 to 100 characters without spaces';
    const characters = [...value];
    if (new Set(characters).size !== characters.length) return 'must not repeat a character';
  }
  return undefined;
}

/** Which console roles may give a member of the group a code (the help-desk policy of issue 14). */
export function issuersOf(stored: Record<string, unknown> | undefined): readonly string[] {
  return stored !== undefined && Value.Check(HelpDeskPolicyOptions, stored)
    ? stored.issuers
    : CONSOLE_ISSUER_ROLES;
}

const MAX_NAME = 100;
const MAX_PRIORITY = 9_999_999;

/** Who an administrator may give a group to: an operator, or the identity provider over SCIM. */
export const GROUP_OWNERS = ['local', 'scim'] as const;
export type GroupOwner = (typeof GROUP_OWNERS)[number];
const isGroupOwner = (owner: string): owner is GroupOwner =>
  (GROUP_OWNERS as readonly string[]).includes(owner);

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_NAME)
    throw new RuleError(`the name must be 1 to ${MAX_NAME} characters`);
  return trimmed;
}

const nameTaken = (name: string): RuleError =>
  new RuleError(`a group named "${name}" already exists`, 'conflict');

/**
 * Groups and their policies, one rule for every entry point (the CLI and the console): names and
 * priorities checked, policy options checked one by one and merged into what is stored, every
 * change audited with who made it.
 */
export class GroupPolicies {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * A new group, owned by whoever makes it: an operator ('local', the CLI and the console) or
   * SCIM ('scim'), which changes only the groups it owns.
   */
  async createGroup(
    name: string,
    priority: number,
    actor: string,
    source: UserSource = 'local',
  ): Promise<Group> {
    const trimmed = checkedName(name);
    if (!Number.isInteger(priority) || Math.abs(priority) > MAX_PRIORITY)
      throw new RuleError(`the priority must be a whole number from -${MAX_PRIORITY} to ${MAX_PRIORITY}`);
    if (await this.store.groups.findByName(trimmed)) throw nameTaken(trimmed);
    const at = this.now();
    const group = { id: newId(at), name: trimmed, priority, source };
    try {
      await this.store.groups.create(group);
    } catch (error) {
      // Another writer made a group of this name in the meantime: the store's unique name held.
      if (await this.store.groups.findByName(trimmed)) throw nameTaken(trimmed);
      throw error;
    }
    await this.store.audit.append(
      { event: 'group.created', actor, details: { group: trimmed, priority, source } },
      at,
    );
    return group;
  }

  /** The group under a new name, checked as a new group's; answers the group as it is now. */
  async renameGroup(group: Group, name: string, actor: string): Promise<Group> {
    const trimmed = checkedName(name);
    if (trimmed === group.name) return group;
    if (await this.store.groups.findByName(trimmed)) throw nameTaken(trimmed);
    let renamed: boolean;
    try {
      renamed = await this.store.groups.rename(group.id, trimmed);
    } catch (error) {
      if (await this.store.groups.findByName(trimmed)) throw nameTaken(trimmed);
      throw error;
    }
    if (!renamed) throw new RuleError(`no group ${group.name}`, 'missing');
    await this.store.audit.append(
      { event: 'group.renamed', actor, details: { source: group.source, from: group.name, group: trimmed } },
      this.now(),
    );
    return { ...group, name: trimmed };
  }

  /**
   * Hands the group to SCIM ('scim': the identity provider may then rename it, set its SCIM
   * members and list it) or takes it back ('local'). Answers the group as it is now.
   */
  async setOwner(group: Group, owner: string, actor: string): Promise<Group> {
    if (!isGroupOwner(owner)) throw new RuleError(`the owner must be ${GROUP_OWNERS.join(' or ')}`);
    if (owner === group.source) return group;
    if (!(await this.store.groups.setSource(group.id, owner)))
      throw new RuleError(`no group ${group.name}`, 'missing');
    await this.store.audit.append(
      { event: 'group.owner_set', actor, details: { group: group.name, from: group.source, owner } },
      this.now(),
    );
    return { ...group, source: owner };
  }

  /** The category's stored options with `changes` applied; answers what is stored now. */
  async setPolicy(
    group: Group,
    category: string,
    changes: Readonly<Record<string, unknown>>,
    actor: string,
  ): Promise<Record<string, unknown>> {
    if (category.trim() === '' || category.length > MAX_NAME)
      throw new RuleError(`the category must be 1 to ${MAX_NAME} characters`);
    if (Object.keys(changes).length === 0) throw new RuleError('nothing to set');
    if (category === POLICY_CATEGORY_HELP_DESK) {
      if (!Value.Check(HelpDeskPolicyOptions, changes))
        throw new RuleError(`issuers must be a list of ${CONSOLE_ISSUER_ROLES.join(' and ')}`);
    } else {
      for (const [name, value] of Object.entries(changes)) {
        if (!(POLICY_NAMES as string[]).includes(name)) throw new RuleError(`${name} is not a policy option`);
        const problem = policyOptionProblem(name as PolicyName, value);
        if (problem !== undefined) throw new RuleError(`${name} ${problem}`);
      }
    }
    const stored = (await this.store.groups.listPolicies(group.id)).find(
      (policy) => policy.category === category,
    )?.options;
    const options = { ...stored, ...changes };
    const at = this.now();
    await this.store.groups.setPolicy(group.id, category, options);
    await this.store.audit.append(
      { event: 'policy.set', actor, details: { group: group.name, category, options: changes } },
      at,
    );
    // Members whose codes this switched off (enableECode false, where this group's policy is the
    // one they get) keep no unused code.
    if (category === POLICY_CATEGORY_SELF_SERVICE) {
      await revokeCodesIfSwitchedOff(this.store, await this.store.groups.listMembers(group.id), {
        actor,
        at,
        cause: 'policy set',
        details: { group: group.name },
      });
    }
    return options;
  }
}
