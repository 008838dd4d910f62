import type { SendType } from '@dea/contract';

/** A message ready to leave: the full recipient address is known only here, never to the page. */
export interface OutgoingMessage {
  channelType: SendType;
  recipient: string;
  subject: string;
  text: string;
  /** The e-mail body as HTML; providers that send HTML build it from `text` when absent. */
  html?: string;
  /** Language of the message (for the HTML lang attribute and voice gateways). */
  language?: string;
  userId: string;
  /** The same key for every attempt of one message, so a retry never delivers twice. */
  idempotencyKey: string;
}

/**
 * What one attempt came to. `reason` goes to the audit log: providers build it from status
 * codes and error codes only, never from the message, the address or a peer's answer text.
 */
export type DeliveryResult =
  | { ok: true; providerMessageId: string }
  | { ok: false; transient: boolean; reason: string };

export interface DeliverOptions {
  /** Aborted when the attempt has run out of time. */
  signal?: AbortSignal;
  /** The time this attempt may take, for transports that take a timeout rather than a signal. */
  timeoutMs?: number;
}

/** One way of delivering messages of some channel types (SMTP, an HTTP gateway, the outbox). */
export interface DeliveryProvider {
  readonly name: string;
  deliver(message: OutgoingMessage, options?: DeliverOptions): Promise<DeliveryResult>;
}

/** Which provider delivers each channel type; undefined when the type is switched off. */
export type DeliveryRouting = (type: SendType) => DeliveryProvider | undefined;
