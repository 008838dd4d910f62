import type { OutboxMessage } from '../../store/store.js';

/**
 * The outbox's sealed messages as the replacement of the secret sees them: a port the domain owns
 * (domain/retention/secret-rotation.ts), implemented by the outbox provider (delivery/outbox-provider.ts),
 * which alone knows how a message is sealed.
 */
export interface OutboxSealing {
  /** Whether one of `sealKeys` opens the message. */
  opens(sealKeys: readonly Buffer[], message: OutboxMessage): boolean;
  /** The message sealed again with `sealKey`; throws when none of `sealKeys` opens it. */
  reseal(sealKeys: readonly Buffer[], sealKey: Buffer, message: OutboxMessage): string;
}
