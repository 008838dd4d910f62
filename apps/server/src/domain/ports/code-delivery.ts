import type { SendType } from '@dea/contract';
import type { Channel } from '../../store/store.js';

/**
 * Delivery as the domain uses it: ports the domain owns, implemented by delivery/
 * (delivery/code-delivery.ts, delivery/notices.ts) and wired in bootstrap.ts, so that no rule
 * imports a provider, a message template or a retry.
 */

/** A code on its way to one of the user's channels. */
export interface CodeToSend {
  channelType: SendType;
  /** The full address: known only to the domain and delivery, never to the page. */
  recipient: string;
  code: string;
  expiresAt: number;
  /** The language and time zone the message is written in. */
  language: string;
  timeZone: string;
  userId: string;
  /**
   * An emergency code (the default), the code that proves a new address (channel-proof.ts) or the
   * one that opens the registration of channels (registration-sign-in.ts), or a test message of a
   * channel the person asked for on the channels page (no code in it: `code` is empty).
   */
  purpose?: 'emergency' | 'proof' | 'registration' | 'test';
}

/**
 * What sending came to, after every attempt. `reason` goes to the audit log: built from status
 * and error codes only, never from the message, the address or a peer's answer text.
 */
export type CodeSendOutcome =
  | { ok: true; attempts: number }
  | { ok: false; reason: string; attempts: number };

/** The sender of one send type: composes the message in its language and delivers it, with retries. */
export interface CodeSender {
  /** The provider's name, for the audit log. */
  readonly name: string;
  send(code: CodeToSend): Promise<CodeSendOutcome>;
}

export interface CodeDelivery {
  /** The sender of a send type at this moment; undefined while the type is switched off. */
  senderOf(type: SendType): CodeSender | undefined;
}

/** A code issued or sent, to be told to the user's other channels (never the code itself). */
export interface CodeNotice {
  userId: string;
  codeId: string;
  /** The channel the code went to (it gets the code, not a notice); null for a code shown on screen. */
  sentTo: Channel | null;
  /** The user's channels as the code's issue read them: the notice goes to the others. */
  channels: readonly Channel[];
  language: string;
  /** The time zone times in the notice are written in (the user's, else DEA_TIME_ZONE). */
  timeZone: string;
  at: number;
  clientAddress: string;
}

export interface CodeNotices {
  /** Tells the other channels in the background: never delays or fails the caller. */
  notify(notice: CodeNotice): void;
}
