import Type from 'typebox';
import type { GatewayPrefix } from './delivery-config.js';

type GatewayField =
  | 'URL'
  | 'METHOD'
  | 'HEADERS'
  | 'BODY'
  | 'CONTENT_TYPE'
  | 'SUCCESS_STATUS'
  | 'SUCCESS_BODY';
export interface StringSetting {
  schema: Type.TString;
  doc: string;
}

/** The seven settings of one generic HTTP gateway (SMS, voice or a messenger). */
function gatewaySettings<Prefix extends GatewayPrefix>(
  prefix: Prefix,
  what: string,
): Record<`DEA_${Prefix}_HTTP_${GatewayField}`, StringSetting> {
  const settings: Record<GatewayField, StringSetting> = {
    URL: {
      schema: Type.String({ pattern: '^($|https?://)', default: '' }),
      doc: `URL of the HTTP gateway for ${what}; may hold {recipient} or {recipientDigits} (URL-encoded). Empty: no gateway.`,
    },
    METHOD: {
      schema: Type.String({ pattern: '^(GET|POST|PUT|PATCH)$', default: 'POST' }),
      doc: `HTTP method of the ${what} gateway: GET, POST, PUT or PATCH.`,
    },
    HEADERS: {
      schema: Type.String({ default: '{}' }),
      doc: `Extra request headers of the ${what} gateway as a JSON object, e.g. an Authorization header (never logged).`,
    },
    BODY: {
      schema: Type.String({ default: '{"to":"{recipient}","text":"{message}"}' }),
      doc: `Body template of the ${what} gateway; {recipient}, {recipientDigits} (without +), {message} and {subject} are escaped for the content type.`,
    },
    CONTENT_TYPE: {
      schema: Type.String({ minLength: 1, pattern: '^[^\\r\\n]+$', default: 'application/json' }),
      doc: `Content type of the ${what} gateway body: JSON, form (application/x-www-form-urlencoded), XML or text escaping follows it.`,
    },
    SUCCESS_STATUS: {
      schema: Type.String({ minLength: 1, default: '200-299' }),
      doc: `HTTP statuses that mean the ${what} gateway accepted the message: codes, ranges or 2xx, comma-separated.`,
    },
    SUCCESS_BODY: {
      schema: Type.String({ default: '' }),
      doc: `Regular expression the ${what} gateway answer body must also match to count as accepted; empty: status only.`,
    },
  };
  return Object.fromEntries(
    Object.entries(settings).map(([field, setting]) => [`DEA_${prefix}_HTTP_${field}`, setting]),
  ) as Record<`DEA_${Prefix}_HTTP_${GatewayField}`, StringSetting>;
}

/** The settings of delivery: which provider serves each channel type, and each provider's own. */
export const deliverySettings = {
  DEA_DELIVERY_EMAIL: {
    schema: Type.Union(
      ['auto', 'outbox', 'smtp', 'off'].map((value) => Type.Literal(value)),
      { default: 'auto' },
    ),
    doc: 'Provider of e-mail (smtp) codes: auto (smtp when DEA_SMTP_HOST is set, else outbox), outbox, smtp or off (channel type disabled).',
  },
  DEA_DELIVERY_SMS: {
    schema: Type.Union(
      ['auto', 'outbox', 'http', 'off'].map((value) => Type.Literal(value)),
      { default: 'auto' },
    ),
    doc: 'Provider of SMS (sms) codes: auto (http when DEA_SMS_HTTP_URL is set, else outbox), outbox, http or off.',
  },
  DEA_DELIVERY_VOICE: {
    schema: Type.Union(
      ['auto', 'outbox', 'http', 'off'].map((value) => Type.Literal(value)),
      { default: 'auto' },
    ),
    doc: 'Provider of voice-call (TELEPHONE) codes: auto (http when DEA_VOICE_HTTP_URL is set, else outbox), outbox, http or off.',
  },
  DEA_DELIVERY_TWITTER: {
    schema: Type.Union(
      ['auto', 'outbox', 'twitter', 'http', 'off'].map((value) => Type.Literal(value)),
      {
        default: 'auto',
      },
    ),
    doc: 'Provider of direct-message (TWITTER) codes: auto (twitter when DEA_TWITTER_TOKEN is set, http when DEA_TWITTER_HTTP_URL is set, else outbox), outbox, twitter, http or off.',
  },
  DEA_DELIVERY_TIMEOUT_MS: {
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
    doc: 'Longest wait for one delivery attempt (connect, send and answer).',
  },
  DEA_DELIVERY_RETRIES: {
    schema: Type.Integer({ minimum: 0, maximum: 5, default: 2 }),
    doc: 'Further attempts after a transient failure (connection refused or reset, timeout, HTTP 5xx or 429, SMTP 4xx); never after a permanent one.',
  },
  DEA_DELIVERY_BACKOFF_MS: {
    schema: Type.Integer({ minimum: 0, maximum: 30_000, default: 500 }),
    doc: 'Wait before the first retry; doubles for each further retry (with jitter).',
  },
  DEA_DELIVERY_DEADLINE_MS: {
    schema: Type.Integer({ minimum: 100, maximum: 120_000, default: 12_000 }),
    doc: 'Longest time one message may take over all its attempts: the answer to createAndSend never waits longer for delivery.',
  },
  DEA_SMTP_HOST: {
    schema: Type.String({ pattern: '^[^\\s/]*$', default: '' }),
    doc: 'SMTP server for e-mail codes; empty: no SMTP.',
  },
  DEA_SMTP_PORT: {
    schema: Type.Integer({ minimum: 1, maximum: 65535, default: 587 }),
    doc: 'SMTP port (587 submission with STARTTLS, 465 TLS, 25 relay).',
  },
  DEA_SMTP_SECURE: {
    schema: Type.Union(
      ['none', 'starttls', 'tls'].map((value) => Type.Literal(value)),
      { default: 'starttls' },
    ),
    doc: 'SMTP protection: starttls (upgrade required, fails without it), tls (TLS from the start, port 465) or none (trusted local relay only).',
  },
  DEA_SMTP_CA_FILE: {
    schema: Type.String({ default: '' }),
    doc: "PEM file of the certificate authorities the SMTP server's certificate may chain to (a private CA), besides the system's; read at start.",
  },
  DEA_SMTP_USER: {
    schema: Type.String({ default: '' }),
    doc: 'SMTP user name; empty: no authentication.',
  },
  DEA_SMTP_PASSWORD: {
    schema: Type.String({ default: '' }),
    doc: 'SMTP password (never logged).',
  },
  DEA_SMTP_FROM: {
    schema: Type.String({ default: '' }),
    doc: 'From header of e-mail codes, e.g. Emergency Access <dea@example.com>; required with SMTP.',
  },
  DEA_TWITTER_API_URL: {
    schema: Type.String({ pattern: '^https?://', default: 'https://api.twitter.com' }),
    doc: 'Base URL of the X (Twitter) API v2 for direct messages.',
  },
  DEA_TWITTER_TOKEN: {
    schema: Type.String({ default: '' }),
    doc: 'OAuth 2.0 user-context bearer token with dm.write, users.read and tweet.read (never logged); empty: no X provider.',
  },
  ...gatewaySettings('SMS', 'SMS'),
  ...gatewaySettings('VOICE', 'voice calls'),
  ...gatewaySettings('TWITTER', 'direct messages'),
  DEA_ALLOWED_PHONE_PREFIXES: {
    schema: Type.String({ pattern: '^$|^\\+\\d{1,6}(\\s*,\\s*\\+\\d{1,6})*$', default: '' }),
    doc: 'Comma-separated international prefixes (e.g. +49,+43) that sms and TELEPHONE numbers must start with; others get error 130. Empty: all.',
  },
  DEA_NOTIFY_OTHER_CHANNELS: {
    schema: Type.Boolean({ default: true }),
    doc: "When a code is issued or sent, send a short notice without the code to the user's other channels.",
  },
} as const;
