import { untrustedChannel } from '../channels/channel-proof.js';
import {
  BRANDING_NAMES,
  SEND_TYPE_OF_CHANNEL,
  joinChannelValue,
  POLICY_CATEGORY_SELF_SERVICE,
  type BrandingEntry,
  type PolicyOptions,
  type ChannelMap,
  type UserGetResult,
  type UserInfo,
} from '@dea/contract';
import type { Store, User } from '../../store/store.js';
import { channelRefusal, type ChannelRules } from '../channels/channel-rules.js';
import { emergencyPolicy, policyOf, type PolicyServices } from '../policies/emergency-policy.js';
import { pagePolicy } from '../policies/screen-code-trust.js';
import { maskAddress } from '../channels/masking.js';
import type { RememberedDevices } from './remembered-devices.js';

/**
 * What the page's read calls answer (spec section 7), one function each, used by their routes and
 * by the page's HTML that carries the same answers (routes/page-html-route.ts).
 */

/** POST userinfo: who is signed in. */
export function userInfoOf(user: User): UserInfo {
  return {
    fullName: user.fullName,
    lastLogin: user.lastLoginAt === null ? null : new Date(user.lastLoginAt).toISOString(),
    userId: user.id,
    // A user without a language has none to answer: the page's language rule applies.
    ...(user.locale !== null && { userLocale: user.locale }),
  };
}

/** POST user/get: the fields asked for of the signed-in user. */
export function userFieldsOf(user: User, fields: readonly (keyof UserGetResult)[]): UserGetResult {
  const values: UserGetResult = { id: user.id, ...(user.locale !== null && { userLocale: user.locale }) };
  return Object.fromEntries(
    fields.flatMap((field) => (values[field] === undefined ? [] : [[field, values[field]]])),
  );
}

const KNOWN_BRANDING = new Set<string>(BRANDING_NAMES);

/** POST customizationConfig/getCurrentConfig: the branding entries the page knows. */
export async function currentBranding(store: Store): Promise<BrandingEntry[]> {
  return (await store.branding.list()).filter((entry) => KNOWN_BRANDING.has(entry.name));
}

/** What the page's answers need to know of a remembered device. */
export type PageServices = PolicyServices & { rememberedDevices: Pick<RememberedDevices, 'check'> };

/**
 * POST user/getPolicy: the user's policy of a category; the "Self Service" one as the page is to
 * follow it from where the request comes (screen-code-trust.ts `pagePolicy`: codes by channel when
 * a code on screen would need a reason to trust that is missing).
 */
export async function policyAnswer(
  services: PageServices,
  userId: string,
  category: string,
  request: { clientAddress: string | null; deviceCookie: string | undefined },
): Promise<{ options: PolicyOptions; screenCodeTrust?: 'missing' }> {
  const options = await policyOf(services, userId, category);
  if (category !== POLICY_CATEGORY_SELF_SERVICE) return { options };
  const followed = await pagePolicy(services, userId, options, {
    ...request,
    devices: services.rememberedDevices,
  });
  return followed.screenCodeTrust === undefined
    ? { options: followed.options }
    : { options: followed.options, screenCodeTrust: followed.screenCodeTrust };
}

/**
 * POST user/queryAvailableChannels: the user's channels a code may go to, masked, with opaque
 * references; refused (error 3, audited) unless the policy sends codes by channel, as the page
 * follows it for this request (`policyAnswer`).
 */
export async function availableChannels(
  services: PageServices & { channelRules: ChannelRules },
  user: User,
  request: { clientAddress: string | null; deviceCookie: string | undefined },
): Promise<ChannelMap> {
  await emergencyPolicy(services, user.id, 'channel', request.clientAddress, user.id, {
    ...request,
    devices: services.rememberedDevices,
  });
  const map: ChannelMap = {};
  for (const channel of await services.store.channels.listOfUser(user.id)) {
    // Only channels a code can go to: not a switched-off type, not a number outside the allowed prefixes.
    if (channelRefusal(services.channelRules, SEND_TYPE_OF_CHANNEL[channel.key], channel.address)) continue;
    // A channel its person registered: not while it cools off, nor once its proof is too old.
    if ((await untrustedChannel(services, channel)) !== undefined) continue;
    map[channel.key] = joinChannelValue(maskAddress(channel.key, channel.address), channel.id);
  }
  return map;
}
