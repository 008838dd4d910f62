import { createHmac } from 'node:crypto';

/**
 * The signature of a message as the Standard Webhooks specification defines it: HMAC-SHA256
 * with the secret's bytes over `<id>.<timestamp>.<body>`, base64, as `v1,<signature>`.
 */
export function signatureOf(secret: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of a signed message. */
export function signedHeaders(
  secret: Buffer,
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureOf(secret, id, timestamp, body),
  };
}
