import { SEND_TYPE_OF_CHANNEL } from '@dea/contract';
import { newId } from '../crypto/ids.js';
import type { Catalogs } from '../domain/texts/catalogs.js';
import { channelRefusal, type ChannelRules } from '../domain/channels/channel-rules.js';
import { maskAddress } from '../domain/channels/masking.js';
import type { ChannelChangeNotice, ChannelChangeNotices } from '../domain/ports/channel-notices.js';
import type { Store } from '../store/store.js';
import { composeChannelNotice } from './compose.js';
import type { AttemptSettings } from './delivery-config.js';
import type { DeliveryRouting } from './delivery.js';
import { deliverWithRetry } from './retrying-delivery.js';

export interface ChannelNoticeDependencies {
  store: Store;
  catalogs: Catalogs;
  /** Looked up per notice, so the routing in use is the one of that moment. */
  route: DeliveryRouting;
  rules: ChannelRules;
  attempt: AttemptSettings;
  now: () => number;
}

/**
 * The notice of a newly registered channel, on every other channel of the person that a message
 * can reach (never the new one, never an address still waiting for its proof), with retries; each
 * outcome audited as notice.sent or notice.failed with details.about channel.registered. Sent
 * whatever DEA_NOTIFY_OTHER_CHANNELS says: it is the person's one chance to undo someone else's
 * registration.
 */
export function channelNotices(deps: ChannelNoticeDependencies): ChannelChangeNotices {
  return {
    async tell(notice: ChannelChangeNotice) {
      const { store, catalogs, rules } = deps;
      const others = (await store.channels.listOfUser(notice.userId)).filter(
        (channel) =>
          channel.id !== notice.channel.id &&
          channel.key !== notice.channel.key &&
          channelRefusal(rules, SEND_TYPE_OF_CHANNEL[channel.key], channel.address) === undefined,
      );
      if (others.length === 0) return;
      const message = await composeChannelNotice(
        catalogs,
        notice.language,
        notice.at,
        maskAddress(notice.channel.key, notice.channel.address),
        notice.undoUrl,
        notice.timeZone,
      );
      await Promise.all(
        others.map(async (channel) => {
          const type = SEND_TYPE_OF_CHANNEL[channel.key];
          const provider = deps.route(type);
          if (provider === undefined) return;
          const outcome = await deliverWithRetry(
            provider,
            {
              channelType: type,
              recipient: channel.address,
              ...message,
              language: notice.language,
              userId: notice.userId,
              idempotencyKey: newId(),
            },
            deps.attempt,
          );
          await store.audit.append(
            {
              event: outcome.ok ? 'notice.sent' : 'notice.failed',
              userId: notice.userId,
              actor: notice.userId,
              clientAddress: notice.clientAddress,
              details: {
                about: 'channel.registered',
                channelId: notice.channel.id,
                channel: type,
                channelKey: channel.key,
                to: maskAddress(channel.key, channel.address),
                provider: provider.name,
                attempts: outcome.attempts,
                ...(!outcome.ok && { reason: outcome.reason }),
              },
            },
            deps.now(),
          );
        }),
      );
    },
  };
}
