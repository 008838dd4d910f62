import type { SendType } from '@dea/contract';
import { keyedHash } from '../../crypto/keyed-hash.js';
import { recipientIdentity } from './recipients.js';
import type { RateCounterRepository, RateLimit } from '../../store/store.js';

export interface LimitRule {
  max: number;
  windowMs: number;
}

export interface SendLimitSettings {
  perUser: LimitRule;
  perRecipient: LimitRule;
  perAddress: LimitRule;
  /** The global budget of one channel type, over all users and instances. */
  perChannelType: LimitRule;
}

export type LimitScope = 'user' | 'recipient' | 'address' | 'channel-type';

export interface SendAttempt {
  userId: string;
  channelType: SendType;
  /** The full address; only its keyed hash reaches the store. */
  recipient: string;
  clientAddress: string;
}

export type SendPermit = { allowed: true } | { allowed: false; scope: LimitScope; retryAfterSeconds: number };

/**
 * The abuse limits of sending codes. Each limit is a counter in the store; one send takes one
 * unit of every counter at once, or none when any is used up, so the limits hold across any
 * number of instances and under concurrent requests. Recipients are counted by a keyed hash,
 * so the counters never hold a phone number or address.
 */
export class SendLimits {
  constructor(
    private readonly counters: RateCounterRepository,
    private readonly settings: SendLimitSettings,
    private readonly hashKey: Buffer,
  ) {}

  private limitsOf(attempt: SendAttempt): (RateLimit & { scope: LimitScope })[] {
    const { perUser, perRecipient, perAddress, perChannelType } = this.settings;
    const recipient = keyedHash(
      this.hashKey,
      'send-limit-recipient',
      recipientIdentity(attempt.channelType, attempt.recipient),
    );
    return [
      { scope: 'user', subject: `send:user:${attempt.userId}`, ...perUser },
      { scope: 'recipient', subject: `send:recipient:${recipient}`, ...perRecipient },
      { scope: 'address', subject: `send:address:${attempt.clientAddress}`, ...perAddress },
      { scope: 'channel-type', subject: `send:type:${attempt.channelType}`, ...perChannelType },
    ];
  }

  /** Takes one send from every limit, or answers the limit that refuses and when to retry. */
  async take(attempt: SendAttempt, now: number): Promise<SendPermit> {
    const limits = this.limitsOf(attempt);
    const outcome = await this.counters.take(limits, now);
    if (outcome.allowed) return { allowed: true };
    const scope = limits.find((limit) => limit.subject === outcome.subject)?.scope ?? 'user';
    return { allowed: false, scope, retryAfterSeconds: Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)) };
  }
}
