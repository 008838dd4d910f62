import type { SendType } from '@dea/contract';

/** A message ready to leave: the full recipient address is known only here, never to the page. */
export interface OutgoingMessage {
  channelType: SendType;
  recipient: string;
  subject: string;
  text: string;
  userId: string;
  /** The same key for every attempt of one message, so a retry never delivers twice. */
  idempotencyKey: string;
}

export type DeliveryResult =
  { ok: true; providerMessageId: string } | { ok: false; transient: boolean; reason: string };

/** One way of delivering messages of some channel types (SMTP, an HTTP gateway, the outbox). */
export interface DeliveryProvider {
  readonly name: string;
  deliver(message: OutgoingMessage): Promise<DeliveryResult>;
}

/** Which provider delivers each channel type. */
export type DeliveryRouting = (type: SendType) => DeliveryProvider | undefined;
