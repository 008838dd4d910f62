import type { CodeDefaults } from './code-settings.js';
import type { Store, User } from '../store/store.js';
import type { Catalogs } from './catalogs.js';
import { issueCode } from './codes.js';
import { emergencyPolicy } from './emergency-policy.js';
import type { CodeNotices } from './ports/code-delivery.js';

/** What issuing a code needs: the store, the code-hash key, texts and notices, the clock. */
export interface CodeServices {
  store: Store;
  keys: { codeHash: Buffer };
  config: { codeDefaults: CodeDefaults; timeZone: string };
  catalogs: Catalogs;
  notices: CodeNotices;
  now: () => number;
}

export interface OnScreenRequest {
  user: User;
  /** The locale the page asked in (spec section 7), for the notice to the other channels. */
  locale: string | undefined;
  clientAddress: string;
}

/**
 * A code shown on screen (tempPass/create): only when the user's policy allows codes on screen,
 * within its limit of unused codes; the user's other channels are told, without the code.
 */
export async function issueCodeOnScreen(
  services: CodeServices,
  { user, locale, clientAddress }: OnScreenRequest,
): Promise<{ id: string; code: string }> {
  const policy = await emergencyPolicy(services, user.id, 'screen', clientAddress);
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
    language: await services.catalogs.choose([locale, user.locale]),
    timeZone: user.timeZone ?? services.config.timeZone,
    at: services.now(),
    clientAddress,
  });
  return { id: issued.id, code: issued.code };
}
