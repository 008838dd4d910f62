import type { ChannelRegistrationPolicyOptions, PolicyOptions } from '@dea/contract';
import type { Channel } from '../../store/store.js';
import { channelTrust, type ChannelTrust } from '../channels/channel-proof.js';
import { sendsByChannel } from '../policies/policy.js';

/** What the help desk may give a user: a code shown to the agent, and the channels a code may go to. */
export interface HelpDeskOffers {
  onScreen: boolean;
  /** References of the user's channels a code may be sent to. */
  channels: string[];
  /** The user's channels that may not receive codes now (channelTrust), by reference, with why. */
  waiting: ReadonlyMap<string, Exclude<ChannelTrust, { usable: true }>>;
}

/**
 * The one rule of what the help desk offers a user, shown by the console and held by the send:
 * nothing for a disabled user or a policy without codes; a code shown to the agent (who reads it
 * out) otherwise; and sending to the user's channels only when their policy sends codes by channel
 * (a policy that shows codes on screen sends nowhere, as the page would refuse it), and only to a
 * channel that may receive codes now: the channelTrust rule send-code.ts holds (a channel its
 * person registered is cooling for `registrationCoolingHours`, or must be proven again), so the
 * help desk is never offered a send that would be refused.
 */
export function helpDeskOffers(
  user: { disabled: boolean },
  policy: Pick<PolicyOptions, 'enableECode' | 'emergencyCodeDelivery'>,
  channels: readonly Pick<Channel, 'id' | 'origin' | 'provenAt' | 'registeredAt'>[],
  registration: ChannelRegistrationPolicyOptions,
  now: number,
): HelpDeskOffers {
  const gives = !user.disabled && policy.enableECode;
  const waiting = new Map<string, Exclude<ChannelTrust, { usable: true }>>();
  for (const channel of channels) {
    const trust = channelTrust(channel, registration, now);
    if (!trust.usable) waiting.set(channel.id, trust);
  }
  return {
    onScreen: gives,
    channels:
      gives && sendsByChannel(policy as PolicyOptions)
        ? channels.filter((channel) => !waiting.has(channel.id)).map((channel) => channel.id)
        : [],
    waiting,
  };
}
