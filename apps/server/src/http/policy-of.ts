import { POLICY_CATEGORY_SELF_SERVICE, type PolicyOptions } from '@dea/contract';
import { notPermitted } from '../domain/api-error.js';
import { resolvePolicy, sendsByChannel } from '../domain/policy.js';
import type { Services } from './types.js';

export async function policyOf(
  services: Services,
  userId: string,
  category: string = POLICY_CATEGORY_SELF_SERVICE,
): Promise<PolicyOptions> {
  const stored = await services.store.groups.findPolicyOfUser(userId, category);
  return resolvePolicy(stored, services.config.codeDefaults);
}

/** The user's self-service policy, when it allows codes delivered the way asked; else error 3. */
export async function emergencyPolicy(
  services: Services,
  userId: string,
  delivery: 'channel' | 'screen',
): Promise<PolicyOptions> {
  const policy = await policyOf(services, userId);
  if (!policy.enableECode) throw notPermitted('error.codesNotEnabled');
  if (sendsByChannel(policy) !== (delivery === 'channel')) throw notPermitted('error.wrongDeliveryMode');
  return policy;
}
