import type { PolicyOptions } from '@dea/contract';
import { sendsByChannel } from './policy.js';

/** What the help desk may give a user: a code shown to the agent, and the channels a code may go to. */
export interface HelpDeskOffers {
  onScreen: boolean;
  /** References of the user's channels a code may be sent to. */
  channels: string[];
}

/**
 * The one rule of what the help desk offers a user, shown by the console and held by the send:
 * nothing for a disabled user or a policy without codes; a code shown to the agent (who reads it
 * out) otherwise; and sending to the user's channels only when their policy sends codes by channel
 * (a policy that shows codes on screen sends nowhere, as the page would refuse it).
 */
export function helpDeskOffers(
  user: { disabled: boolean },
  policy: Pick<PolicyOptions, 'enableECode' | 'emergencyCodeDelivery'>,
  channels: readonly { id: string }[],
): HelpDeskOffers {
  const gives = !user.disabled && policy.enableECode;
  return {
    onScreen: gives,
    channels: gives && sendsByChannel(policy as PolicyOptions) ? channels.map((channel) => channel.id) : [],
  };
}
