import type { CodeDefaults } from './code-settings.js';
import type { Store, User } from '../../store/store.js';
import type { PoliciesReadWithSession } from '../page/sessions.js';
import type { Catalogs } from '../texts/catalogs.js';
import { issueCode } from './codes.js';
import { emergencyPolicy } from '../policies/emergency-policy.js';
import type { CodeNotices } from '../ports/code-delivery.js';
import type { RememberedDevices } from '../page/remembered-devices.js';

/** What issuing a code needs: the store, the code-hash key, texts and notices, the clock. */
export interface CodeServices {
  store: Store;
  keys: { codeHash: Buffer };
  config: { codeDefaults: CodeDefaults; timeZone: string };
  catalogs: Catalogs;
  notices: CodeNotices;
  rememberedDevices: Pick<RememberedDevices, 'check'>;
  now: () => number;
}

export interface OnScreenRequest {
  user: User;
  /** The locale the page asked in (spec section 7), for the notice to the other channels. */
  locale: string | undefined;
  clientAddress: string;
  /** The remembered-device cookie the request carries (screen-code-trust.ts). */
  deviceCookie: string | undefined;
  /** The page policies as read with the session, when they were (emergency-policy.ts). */
  storedPolicies?: PoliciesReadWithSession | undefined;
}

/**
 * A code shown on screen (tempPass/create): only when the user's policy allows codes on screen,
 * from a trusted network or a remembered device when the policy asks for one (screen-code-trust.ts),
 * within its limit of unused codes; the user's other channels are told, without the code.
 */
export async function issueCodeOnScreen(
  services: CodeServices,
  { user, locale, clientAddress, deviceCookie, storedPolicies }: OnScreenRequest,
): Promise<{ id: string; code: string }> {
  const policy = await emergencyPolicy(services, user.id, 'screen', clientAddress, user.id, {
    clientAddress,
    deviceCookie,
    devices: services.rememberedDevices,
    stored: storedPolicies,
  });
  const issued = await issueCode(services.store, services.keys.codeHash, {
    userId: user.id,
    policy,
    channelType: null,
    clientAddress,
    now: services.now(),
  });
  services.notices.notify({
    userId: user.id,
    codeId: issued.id,
    sentTo: null,
    channels: issued.channels,
    language: await services.catalogs.choose([locale, user.locale]),
    timeZone: user.timeZone ?? services.config.timeZone,
    at: services.now(),
    clientAddress,
  });
  return { id: issued.id, code: issued.code };
}
