import {
  CHANNEL_DELIVERY_MODE,
  ChannelRegistrationPolicyOptions,
  DEFAULT_CHANNEL_REGISTRATION_POLICY,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  SEND_TYPES,
  CONSOLE_ISSUER_ROLES,
  HelpDeskPolicyOptions,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  PolicyOptions,
} from '@dea/contract';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import type { Group, Store } from '../../store/store.js';
import type { Groups } from '../identity/groups.js';
import { RuleError } from '../rule-error.js';
import { isTrustedNetwork } from './screen-code-trust.js';

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

/** Which console roles may give a member of the group a code (the group's help-desk policy). */
export function issuersOf(stored: Record<string, unknown> | undefined): readonly string[] {
  return stored !== undefined && Value.Check(HelpDeskPolicyOptions, stored)
    ? stored.issuers
    : CONSOLE_ISSUER_ROLES;
}

/**
 * Why a value cannot be this "Channel Registration" option, in words that name the
 * option; undefined when it can.
 */
export function registrationOptionProblem(name: string, value: unknown): string | undefined {
  const schema = (ChannelRegistrationPolicyOptions.properties as Record<string, TSchema>)[name];
  if (schema === undefined)
    return `${name} is not a channel registration option (${Object.keys(ChannelRegistrationPolicyOptions.properties).join(', ')})`;
  if (name === 'screenCodeTrustedNetworks') {
    const wrong = Array.isArray(value)
      ? value.filter((entry) => typeof entry !== 'string' || !isTrustedNetwork(entry))
      : [value];
    if (wrong.length === 0 && Value.Check(schema, value)) return undefined;
    return `${name} must be a list of at most 100 IPv4 or IPv6 addresses or CIDR ranges (10.0.0.0/8, 2001:db8::/32)${wrong.length > 0 ? `; not one: ${wrong.map((entry) => JSON.stringify(entry)).join(', ')}` : ''}`;
  }
  if (Value.Check(schema, value)) return undefined;
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  return name === 'registrationChannelTypes'
    ? `${name} must be a list of ${SEND_TYPES.join(', ')}, each once`
    : `${name} must be a whole number from ${minimum} to ${maximum}`;
}

export type RegistrationOptionName = keyof ChannelRegistrationPolicyOptions;
export const REGISTRATION_OPTION_NAMES = Object.keys(
  ChannelRegistrationPolicyOptions.properties,
) as RegistrationOptionName[];

/**
 * A stored "Channel Registration" policy as it applies: each stored option that is valid, the
 * default (DEFAULT_CHANNEL_REGISTRATION_POLICY) for the others.
 */
export function effectiveRegistrationOptions(
  stored: Readonly<Record<string, unknown>>,
): ChannelRegistrationPolicyOptions {
  const options: Record<string, unknown> = { ...DEFAULT_CHANNEL_REGISTRATION_POLICY };
  for (const name of REGISTRATION_OPTION_NAMES)
    if (registrationOptionProblem(name, stored[name]) === undefined) options[name] = stored[name];
  return options as ChannelRegistrationPolicyOptions;
}

/** The user's "Help Desk" policy (their first group's with one) lets this console role help them. */
export function helpDeskPolicyAllows(stored: Record<string, unknown> | undefined, role: string): boolean {
  return issuersOf(stored).includes(role);
}

const MAX_CATEGORY = 100;

/**
 * Group policies, one rule for every entry point (the CLI and the console): policy options checked
 * one by one and merged into what is stored, written and audited through the groups module
 * (identity/groups.ts, which also creates, renames and hands over groups).
 */
export class GroupPolicies {
  constructor(
    private readonly store: Store,
    /** The groups module (identity/groups.ts), which writes and audits every policy. */
    private readonly groups: Groups,
  ) {}

  /** The category's stored options with `changes` applied; answers what is stored now. */
  async setPolicy(
    group: Group,
    category: string,
    changes: Readonly<Record<string, unknown>>,
    actor: string,
  ): Promise<Record<string, unknown>> {
    if (category.trim() === '' || category.length > MAX_CATEGORY)
      throw new RuleError(`the category must be 1 to ${MAX_CATEGORY} characters`);
    if (Object.keys(changes).length === 0) throw new RuleError('nothing to set');
    if (category === POLICY_CATEGORY_HELP_DESK) {
      if (!Value.Check(HelpDeskPolicyOptions, changes))
        throw new RuleError(`issuers must be a list of ${CONSOLE_ISSUER_ROLES.join(' and ')}`);
    } else if (category === POLICY_CATEGORY_CHANNEL_REGISTRATION) {
      for (const [name, value] of Object.entries(changes)) {
        const problem = registrationOptionProblem(name, value);
        if (problem !== undefined) throw new RuleError(problem);
      }
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
    // Members whose codes this switched off (enableECode false, where this group's policy is the
    // one they get) keep no unused code.
    await this.groups.setPolicy(
      group,
      { category, options, changes: { ...changes } },
      { door: 'local', actor },
      category === POLICY_CATEGORY_SELF_SERVICE,
    );
    return options;
  }
}
