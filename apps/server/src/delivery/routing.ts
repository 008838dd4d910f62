import { SEND_TYPES, type SendType } from '@dea/contract';
import type { DeliveryConfig } from './delivery-config.js';
import type { DeliveryProvider, DeliveryRouting } from './delivery.js';
import { httpGatewayProvider } from './http-gateway-provider.js';
import { smtpProvider } from './smtp-provider.js';
import { twitterProvider } from './twitter-provider.js';

/**
 * The provider of every send type, built once at start from the validated configuration (which
 * has made sure each chosen provider has its settings). A type switched off has none.
 */
export function deliveryRouting(config: DeliveryConfig, outbox: DeliveryProvider): DeliveryRouting {
  const providers = new Map<SendType, DeliveryProvider>();
  for (const type of SEND_TYPES) {
    const provider = providerOf(config, type, outbox);
    if (provider) providers.set(type, provider);
  }
  return (type) => providers.get(type);
}

function providerOf(
  config: DeliveryConfig,
  type: SendType,
  outbox: DeliveryProvider,
): DeliveryProvider | undefined {
  switch (config.routes[type]) {
    case 'outbox':
      return outbox;
    case 'smtp':
      return config.smtp && smtpProvider(config.smtp, config.attempt.timeoutMs);
    case 'http': {
      const gateway = type === 'smtp' ? undefined : config.http[type];
      return gateway && httpGatewayProvider(`http-${type.toLowerCase()}`, gateway);
    }
    case 'twitter':
      return config.twitter && twitterProvider(config.twitter);
    case 'off':
      return undefined;
  }
}
