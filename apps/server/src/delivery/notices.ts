import { SEND_TYPE_OF_CHANNEL } from '@dea/contract';
import { newId } from '../crypto/ids.js';
import type { Catalogs } from '../domain/texts/catalogs.js';
import { type ChannelRules, channelRefusal } from '../domain/channels/channel-rules.js';
import { maskAddress } from '../domain/channels/masking.js';
import type { CodeNotice, CodeNotices } from '../domain/ports/code-delivery.js';
import type { Channel, Store } from '../store/store.js';
import { composeNotice } from './compose.js';
import type { AttemptSettings } from './delivery-config.js';
import type { DeliveryRouting } from './delivery.js';
import { deliverWithRetry } from './retrying-delivery.js';

/** A code issued or sent, as the domain tells it (domain/ports/code-delivery.ts). */
export type NoticeEvent = CodeNotice;

export interface NoticeDependencies {
  store: Store;
  catalogs: Catalogs;
  /** Looked up per notice, so the routing in use is the one of that moment. */
  route: DeliveryRouting;
  rules: ChannelRules;
  attempt: AttemptSettings;
  enabled: boolean;
  now: () => number;
  /** Where a failure that cannot be audited (the store itself failing) is reported. */
  onError?: (error: unknown) => void;
}

/**
 * Tells a user on every other channel that a code was issued or sent, so someone else's use of
 * their session does not go unnoticed. Notices run after the answer, in the background: they
 * never delay or fail it, their outcome is audited, and they count against no send limit (each
 * follows a send or an issue that its own limits already bound).
 */
export class Notices implements CodeNotices {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: NoticeDependencies) {}

  notify(event: NoticeEvent): void {
    if (!this.deps.enabled) return;
    const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.send(event))
      .catch((error: unknown) => this.deps.onError?.(error))
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Resolves when every notice started so far is done (for a graceful close and for tests). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async send(event: NoticeEvent): Promise<void> {
    const { catalogs, rules } = this.deps;
    const others = event.channels.filter(
      (channel) =>
        channel.id !== event.sentTo?.id &&
        channelRefusal(rules, SEND_TYPE_OF_CHANNEL[channel.key], channel.address) === undefined,
    );
    if (others.length === 0) return;
    const sentTo = event.sentTo === null ? null : maskAddress(event.sentTo.key, event.sentTo.address);
    const notice = await composeNotice(catalogs, event.language, event.at, sentTo, event.timeZone);
    await Promise.all(others.map((channel) => this.sendTo(channel, notice, event)));
  }

  private async sendTo(
    channel: Channel,
    notice: { subject: string; text: string; html: string },
    event: NoticeEvent,
  ): Promise<void> {
    const type = SEND_TYPE_OF_CHANNEL[channel.key];
    const provider = this.deps.route(type);
    if (provider === undefined) return;
    const outcome = await deliverWithRetry(
      provider,
      {
        channelType: type,
        recipient: channel.address,
        ...notice,
        language: event.language,
        userId: event.userId,
        idempotencyKey: newId(),
      },
      this.deps.attempt,
    );
    await this.deps.store.audit.append(
      {
        event: outcome.ok ? 'notice.sent' : 'notice.failed',
        userId: event.userId,
        actor: event.userId,
        clientAddress: event.clientAddress,
        details: {
          codeId: event.codeId,
          channel: type,
          channelKey: channel.key,
          to: maskAddress(channel.key, channel.address),
          provider: provider.name,
          attempts: outcome.attempts,
          ...(!outcome.ok && { reason: outcome.reason }),
        },
      },
      this.deps.now(),
    );
  }
}
