import { CHANNEL_DELIVERY_MODE, PolicyOptions } from '@dea/contract';
import Value from 'typebox/value';
import type { CodeDefaults } from '../codes/code-settings.js';

/**
 * The emergency policy a user gets: the stored options of their group, each checked, with the
 * safe defaults for what is missing or not valid. No policy at all means codes are disabled.
 */
export function resolvePolicy(
  stored: Record<string, unknown> | undefined,
  defaults: CodeDefaults,
): PolicyOptions {
  // The store answers the same frozen object for the same stored text (groups.ts policyOptionsOf):
  // each one is checked once per set of defaults, not at every code's issue and use.
  if (stored === undefined || !Object.isFrozen(stored)) return resolved(stored, defaults);
  let ofDefaults = resolvedPolicies.get(defaults);
  if (ofDefaults === undefined) resolvedPolicies.set(defaults, (ofDefaults = new WeakMap()));
  let policy = ofDefaults.get(stored);
  if (policy === undefined) ofDefaults.set(stored, (policy = Object.freeze(resolved(stored, defaults))));
  return policy;
}

const resolvedPolicies = new WeakMap<CodeDefaults, WeakMap<object, PolicyOptions>>();

function resolved(stored: Record<string, unknown> | undefined, defaults: CodeDefaults): PolicyOptions {
  const base: PolicyOptions = { enableECode: false, emergencyCodeDelivery: 'Display', ...defaults };
  if (stored === undefined) return base;
  const merged: Record<string, unknown> = { ...base };
  for (const [name, schema] of Object.entries(PolicyOptions.properties)) {
    const value = stored[name];
    if (value !== undefined && Value.Check(schema, value)) merged[name] = value;
  }
  const alphabet = merged.codeAlphabet as string;
  if (new Set(alphabet).size !== [...alphabet].length) merged.codeAlphabet = defaults.codeAlphabet;
  return merged as PolicyOptions;
}

/** Whether a user with this stored "Self Service" policy may have codes (as resolvePolicy decides). */
export const codesEnabled = (stored: Record<string, unknown> | undefined): boolean =>
  stored?.enableECode === true;

export const sendsByChannel = (policy: PolicyOptions): boolean =>
  policy.emergencyCodeDelivery === CHANNEL_DELIVERY_MODE;
