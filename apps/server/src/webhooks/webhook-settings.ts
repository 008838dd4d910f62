import Type from 'typebox';
import { readCaFile } from '../files/ca-file.js';

/** The events an operator may send to a webhook: a code's life, never the code itself. */
export const WEBHOOK_EVENTS = ['code.issued', 'code.sent', 'code.used', 'code.verify_lockout'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The audit export's destination of an event's webhook: the name of its position in the store. */
export const webhookDestinationName = (event: WebhookEvent): `webhook:${WebhookEvent}` => `webhook:${event}`;

/** The destinations of the configured webhooks. */
export const webhookDestinationsOf = (config: WebhookConfig | undefined): `webhook:${WebhookEvent}`[] =>
  config === undefined ? [] : (Object.keys(config.urls) as WebhookEvent[]).map(webhookDestinationName);

export const isWebhookEvent = (name: string): name is WebhookEvent =>
  (WEBHOOK_EVENTS as readonly string[]).includes(name);

export interface WebhookConfig {
  /** The HTTPS endpoint of each event that has one. */
  urls: Partial<Record<WebhookEvent, string>>;
  /** The signing key's bytes (the base64 after whsec_). */
  secret: Buffer;
  /** PEM of a private CA the endpoints' certificates may chain to, besides the system's. */
  ca: string | undefined;
  attempts: number;
  retryBaseMs: number;
  timeoutMs: number;
}

export const webhookSettings = {
  DEA_WEBHOOKS: {
    schema: Type.String({ default: '' }),
    doc: `HTTPS webhooks per event, as JSON: {"code.used": "https://siem.example.com/hooks/dea", ...}; events: ${WEBHOOK_EVENTS.join(', ')}. Signed as Standard Webhooks describes (webhook-id, webhook-timestamp, webhook-signature); never carrying a code. Empty: none.`,
  },
  DEA_WEBHOOK_SECRET: {
    schema: Type.String({ default: '' }),
    doc: 'The signing secret of the webhooks, as Standard Webhooks writes it: whsec_ and at least 24 random bytes in base64 (never logged). Required with DEA_WEBHOOKS.',
  },
  DEA_WEBHOOK_CA_FILE: {
    schema: Type.String({ default: '' }),
    doc: "PEM file of the certificate authorities the endpoints' certificates may chain to (a private CA), besides the system's; read at start.",
  },
  DEA_WEBHOOK_ATTEMPTS: {
    schema: Type.Integer({ minimum: 1, maximum: 20, default: 6 }),
    doc: 'Attempts per webhook message its endpoint refuses (an answer 4xx other than 408 and 429) before it is given up (logged and counted) and the next one goes. An endpoint that cannot be reached, times out or answers 408, 429 or 5xx is retried until it takes the message: it waits in the store.',
  },
  DEA_WEBHOOK_RETRY_BASE_MS: {
    schema: Type.Integer({ minimum: 10, maximum: 600_000, default: 2000 }),
    doc: 'Wait before the first retry of a failing webhook; each further retry waits twice as long (with up to 20% jitter, at most 10 minutes), or what the endpoint asks with Retry-After (at most 10 minutes).',
  },
  DEA_WEBHOOK_TIMEOUT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 60, default: 10 }),
    doc: 'How long one attempt may take, connection and answer.',
  },
} as const;

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The webhooks part of the configuration (undefined without DEA_WEBHOOKS); a line per problem. */
export function webhookConfigOf(
  setting: (name: string) => string,
  problems: string[],
): WebhookConfig | undefined {
  const text = setting('DEA_WEBHOOKS').trim();
  if (text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problems.push('DEA_WEBHOOKS: is not valid JSON ({"code.used": "https://..."})');
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('DEA_WEBHOOKS: must be a JSON object of event -> https URL');
    return undefined;
  }
  const urls: Partial<Record<WebhookEvent, string>> = {};
  for (const [event, url] of Object.entries(parsed)) {
    if (!isWebhookEvent(event)) {
      problems.push(`DEA_WEBHOOKS: "${event}" is not one of ${WEBHOOK_EVENTS.join(', ')}`);
    } else if (typeof url !== 'string' || !/^https:\/\/[^\s/]+(\/\S*)?$/i.test(url)) {
      problems.push(`DEA_WEBHOOKS: the URL of ${event} must be an https:// URL`);
    } else {
      urls[event] = url;
    }
  }
  const secretMatch = SECRET.exec(setting('DEA_WEBHOOK_SECRET').trim());
  const secret = secretMatch?.[1] === undefined ? Buffer.alloc(0) : Buffer.from(secretMatch[1], 'base64');
  if (secret.length < 24)
    problems.push(
      'DEA_WEBHOOK_SECRET: required with DEA_WEBHOOKS, as whsec_ and at least 24 random bytes in base64 (openssl rand -base64 32)',
    );
  return {
    urls,
    secret,
    ca: readCaFile('DEA_WEBHOOK_CA_FILE', setting('DEA_WEBHOOK_CA_FILE'), problems),
    attempts: Number(setting('DEA_WEBHOOK_ATTEMPTS')),
    retryBaseMs: Number(setting('DEA_WEBHOOK_RETRY_BASE_MS')),
    timeoutMs: Number(setting('DEA_WEBHOOK_TIMEOUT_SECONDS')) * 1000,
  };
}
