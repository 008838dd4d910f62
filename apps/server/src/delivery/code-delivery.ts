import type { SendType } from '@dea/contract';
import { newId } from '../crypto/ids.js';
import type { Catalogs } from '../domain/texts/catalogs.js';
import type { CodeDelivery, CodeSender } from '../domain/ports/code-delivery.js';
import { composeCodeMessage } from './compose.js';
import type { AttemptSettings } from './delivery-config.js';
import type { DeliveryRouting } from './delivery.js';
import { deliverWithRetry } from './retrying-delivery.js';

export interface CodeDeliveryDependencies {
  /** Looked up per code, so the routing in use is the one of that moment. */
  route: DeliveryRouting;
  catalogs: Catalogs;
  attempt: AttemptSettings;
}

/**
 * The domain's CodeDelivery (domain/ports/code-delivery.ts) on the providers: each code composed
 * in its language and time zone, then delivered with retries (retrying-delivery.ts) under one
 * idempotency key.
 */
export function codeDelivery({ route, catalogs, attempt }: CodeDeliveryDependencies): CodeDelivery {
  return {
    senderOf(type: SendType): CodeSender | undefined {
      const provider = route(type);
      if (provider === undefined) return undefined;
      return {
        name: provider.name,
        async send(code) {
          const message = await composeCodeMessage(
            catalogs,
            code.language,
            code.channelType,
            code.code,
            code.expiresAt,
            code.timeZone,
            code.purpose ?? 'emergency',
          );
          const outcome = await deliverWithRetry(
            provider,
            {
              channelType: code.channelType,
              recipient: code.recipient,
              ...message,
              language: code.language,
              userId: code.userId,
              idempotencyKey: newId(),
            },
            attempt,
          );
          return outcome.ok
            ? { ok: true, attempts: outcome.attempts }
            : { ok: false, reason: outcome.reason, attempts: outcome.attempts };
        },
      };
    },
  };
}
