import { newId } from '../crypto/ids.js';
import { seal, unseal } from '../crypto/sealing.js';
import type { OutboxMessage, Store } from '../store/store.js';
import type { OutboxSealing } from '../domain/ports/outbox-sealing.js';
import type { DeliveryProvider, OutgoingMessage } from './delivery.js';

export interface OutboxContent {
  recipient: string;
  subject: string;
  text: string;
}

const associatedData = (id: string): string => `outbox:${id}`;

/**
 * The local provider for demos and development: every message is kept in the store, sealed
 * with a key that is not in the store, so a dump of the store never shows a code in clear.
 */
export function outboxProvider(
  store: Store,
  sealKey: Buffer,
  now: () => number = Date.now,
): DeliveryProvider {
  return {
    name: 'outbox',
    async deliver(message: OutgoingMessage) {
      const id = newId(now());
      const content: OutboxContent = {
        recipient: message.recipient,
        subject: message.subject,
        text: message.text,
      };
      await store.outbox.add({
        id,
        createdAt: now(),
        channelType: message.channelType,
        userId: message.userId,
        idempotencyKey: message.idempotencyKey,
        sealed: seal(sealKey, JSON.stringify(content), associatedData(id)),
      });
      return { ok: true, providerMessageId: id };
    },
  };
}

/**
 * Opens a message with the first of the keys that sealed it: the current one, or during a
 * rotation the previous secret's. Throws when none did.
 */
export function openOutboxMessage(sealKeys: readonly Buffer[], message: OutboxMessage): OutboxContent {
  let failure: unknown = new Error('no key to open the outbox message with');
  for (const key of sealKeys) {
    try {
      return JSON.parse(unseal(key, message.sealed, associatedData(message.id))) as OutboxContent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/** The message sealed again with `sealKey` (the current key), for `dea secret reseal`. */
export function resealOutboxMessage(
  sealKeys: readonly Buffer[],
  sealKey: Buffer,
  message: OutboxMessage,
): string {
  return seal(sealKey, JSON.stringify(openOutboxMessage(sealKeys, message)), associatedData(message.id));
}

/** The domain's OutboxSealing (domain/ports/outbox-sealing.ts): how the secret's replacement sees sealed messages. */
export const outboxSealing: OutboxSealing = {
  opens(sealKeys, message) {
    try {
      openOutboxMessage(sealKeys, message);
      return true;
    } catch {
      return false;
    }
  },
  reseal: resealOutboxMessage,
};
