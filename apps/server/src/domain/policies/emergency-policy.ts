import {
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_SELF_SERVICE,
  type PolicyOptions,
} from '@dea/contract';
import type { CodeDefaults } from '../codes/code-settings.js';
import type { Store } from '../../store/store.js';
import type { PoliciesReadWithSession } from '../page/sessions.js';
import { notPermitted } from '../errors.js';
import { resolvePolicy, sendsByChannel } from './policy.js';
import { pagePolicy, type PageRequest } from './screen-code-trust.js';

/** The policies a request from the page follows (screen-code-trust.ts), read in one statement. */
export const PAGE_POLICY_CATEGORIES = [
  POLICY_CATEGORY_SELF_SERVICE,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
] as const satisfies readonly [string, string];

/** Policies read with a session count for the page only when they are this user's page policies. */
const isPagePoliciesOf = (
  read: PoliciesReadWithSession | undefined,
  userId: string,
): read is PoliciesReadWithSession =>
  read !== undefined &&
  read.userId === userId &&
  read.categories[0] === PAGE_POLICY_CATEGORIES[0] &&
  read.categories[1] === PAGE_POLICY_CATEGORIES[1];

/** The policy the page follows for the user: from the policies read with the session, else read now. */
async function pagePolicyOf(
  services: PolicyServices,
  userId: string,
  page: PageRequest & { stored?: PoliciesReadWithSession | undefined },
) {
  const [selfService, registration] = isPagePoliciesOf(page.stored, userId)
    ? page.stored.stored
    : await services.store.groups.findPoliciesOfUser(userId, PAGE_POLICY_CATEGORIES);
  return pagePolicy(services, userId, resolvePolicy(selfService, services.config.codeDefaults), {
    ...page,
    registrationPolicy: { stored: registration },
  });
}

/** What deciding on a user's policy needs. */
export interface PolicyServices {
  store: Store;
  config: { codeDefaults: CodeDefaults };
  now: () => number;
}

/** The user's policy of a category: their group's stored options, checked, defaults filling the rest. */
export async function policyOf(
  services: PolicyServices,
  userId: string,
  category: string = POLICY_CATEGORY_SELF_SERVICE,
): Promise<PolicyOptions> {
  const stored = await services.store.groups.findPolicyOfUser(userId, category);
  return resolvePolicy(stored, services.config.codeDefaults);
}

/**
 * The user's self-service policy, when it allows codes delivered the way asked; else error 3,
 * audited like every other refusal of a code. Asked for the page (`page`: where the request comes
 * from), the policy is the one the page follows (screen-code-trust.ts `pagePolicy`): a code on
 * screen needs a reason to trust when the person's policy asks for one (refused as
 * code.screen_untrusted), and without it codes go by channel.
 */
export async function emergencyPolicy(
  services: PolicyServices,
  userId: string,
  delivery: 'channel' | 'screen',
  clientAddress: string | null,
  /** Who asks, when not the user themself (a help-desk agent). */
  actor: string = userId,
  /** `stored`: the page policies as read with the session, when they were (used for that user only). */
  page?: PageRequest & { stored?: PoliciesReadWithSession | undefined },
): Promise<PolicyOptions> {
  // Asked for the page, the "Channel Registration" policy may decide too: both read in one
  // statement, or with the session already.
  const followed =
    page === undefined
      ? { options: await policyOf(services, userId) }
      : await pagePolicyOf(services, userId, page);
  const policy = followed.options;
  const untrusted = delivery === 'screen' && followed.trust?.trusted === false ? followed.trust : undefined;
  if (untrusted !== undefined) {
    await services.store.audit.append(
      { event: 'code.screen_untrusted', userId, actor, clientAddress, details: { device: untrusted.device } },
      services.now(),
    );
    throw notPermitted('error.screenCodeUntrusted');
  }
  const refusal = !policy.enableECode
    ? ({ reason: 'codes-disabled', textKey: 'error.codesNotEnabled' } as const)
    : sendsByChannel(policy) !== (delivery === 'channel')
      ? ({ reason: 'wrong-delivery-mode', textKey: 'error.wrongDeliveryMode' } as const)
      : undefined;
  if (refusal === undefined) return policy;
  await services.store.audit.append(
    {
      event: 'code.refused',
      userId,
      actor,
      clientAddress,
      details: { reason: refusal.reason, delivery },
    },
    services.now(),
  );
  throw notPermitted(refusal.textKey);
}
