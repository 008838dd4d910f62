import { internationalPhone } from '../domain/channels/channel-rules.js';
import { fillTemplate } from './body-template.js';
import type { HttpGatewaySettings } from './delivery-config.js';
import type { DeliveryProvider, OutgoingMessage } from './delivery.js';
import { httpCall, isTransientStatus } from './http-request.js';

/** Gateways address phones in international form: '+49 170 5550112' is sent as '+491705550112'. */
function gatewayRecipient(message: OutgoingMessage): string {
  return message.channelType === 'sms' || message.channelType === 'TELEPHONE'
    ? internationalPhone(message.recipient)
    : message.recipient;
}

/**
 * The generic HTTP gateway: one request per message, built from the operator's URL, method,
 * headers and body template, so SMS, voice and messenger APIs are served by configuration.
 * The message's idempotency key goes in an Idempotency-Key header on every attempt, so a
 * gateway that honours it delivers a retried message once.
 */
export function httpGatewayProvider(name: string, settings: HttpGatewaySettings): DeliveryProvider {
  return {
    name,
    async deliver(message, options = {}) {
      const values = {
        recipient: gatewayRecipient(message),
        message: message.text,
        subject: message.subject,
      };
      const hasBody = settings.method !== 'GET';
      const answer = await httpCall({
        url: fillTemplate(settings.url, values, 'url'),
        method: settings.method,
        headers: {
          ...settings.headers,
          ...(hasBody && { 'content-type': settings.contentType }),
          'idempotency-key': message.idempotencyKey,
        },
        ...(hasBody && { body: fillTemplate(settings.bodyTemplate, values, settings.encoding) }),
        signal: options.signal,
      });
      if ('failed' in answer) return answer.failed;
      const statusOk = settings.successStatuses.some(
        (range) => answer.status >= range.from && answer.status <= range.to,
      );
      if (!statusOk)
        return { ok: false, transient: isTransientStatus(answer.status), reason: `HTTP ${answer.status}` };
      if (settings.successBody && !settings.successBody.test(answer.body)) {
        // The gateway answered and refused in its body: trying again would be refused again.
        return {
          ok: false,
          transient: false,
          reason: `HTTP ${answer.status}, answer does not match the success pattern`,
        };
      }
      return { ok: true, providerMessageId: message.idempotencyKey };
    },
  };
}
