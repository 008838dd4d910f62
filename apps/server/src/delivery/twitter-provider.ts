import type { TwitterSettings } from './delivery-config.js';
import type { DeliveryProvider, DeliveryResult } from './delivery.js';
import { httpCall, isTransientStatus } from './http-request.js';

const NUMERIC_ID = /^\d{1,25}$/;
const HANDLE = /^@?([A-Za-z0-9_]{1,15})$/;

function failure(status: number, step: string): DeliveryResult {
  return { ok: false, transient: isTransientStatus(status), reason: `HTTP ${status} (${step})` };
}

/**
 * Direct messages through the X (Twitter) API v2:
 * `GET {base}/2/users/by/username/{handle}` finds the account id of a stored '@handle' (a
 * stored numeric id is used as it is), then
 * `POST {base}/2/dm_conversations/with/{id}/messages` with `{"text": ...}` sends the message.
 * Both carry `Authorization: Bearer <token>` and the message's Idempotency-Key.
 */
export function twitterProvider(settings: TwitterSettings): DeliveryProvider {
  const base = settings.apiUrl.replace(/\/+$/, '');
  return {
    name: 'twitter',
    async deliver(message, options = {}) {
      const headers = {
        authorization: `Bearer ${settings.token}`,
        'idempotency-key': message.idempotencyKey,
      };
      let participant = message.recipient.trim();
      if (!NUMERIC_ID.test(participant)) {
        const handle = HANDLE.exec(participant)?.[1];
        if (handle === undefined)
          return { ok: false, transient: false, reason: 'recipient is not an X handle or id' };
        const lookup = await httpCall({
          url: `${base}/2/users/by/username/${encodeURIComponent(handle)}`,
          method: 'GET',
          headers,
          signal: options.signal,
        });
        if ('failed' in lookup) return lookup.failed;
        if (lookup.status !== 200) return failure(lookup.status, 'user lookup');
        const id = parseUserId(lookup.body);
        if (id === undefined)
          return { ok: false, transient: false, reason: 'HTTP 200 (user lookup) without a user id' };
        participant = id;
      }
      const sent = await httpCall({
        url: `${base}/2/dm_conversations/with/${encodeURIComponent(participant)}/messages`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ text: message.text }),
        signal: options.signal,
      });
      if ('failed' in sent) return sent.failed;
      if (sent.status !== 200 && sent.status !== 201) return failure(sent.status, 'direct message');
      return { ok: true, providerMessageId: parseEventId(sent.body) ?? message.idempotencyKey };
    },
  };
}

function parseJsonData(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    const data = (parsed as { data?: unknown } | null)?.data;
    return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parseUserId(body: string): string | undefined {
  const id = parseJsonData(body)?.id;
  return typeof id === 'string' && NUMERIC_ID.test(id) ? id : undefined;
}

function parseEventId(body: string): string | undefined {
  const id = parseJsonData(body)?.dm_event_id;
  return typeof id === 'string' ? id : undefined;
}
