import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isTimeZone } from './domain/time-zone.js';
import { resolve } from 'node:path';
import Type from 'typebox';
import Value from 'typebox/value';
import type { SendLimitSettings } from './domain/send-limits.js';
import type { SigninThrottleSettings } from './domain/signin-throttle.js';
import type { VerificationSettings } from './domain/verification.js';
import { type RadiusConfig, radiusConfigOf, radiusSettings } from './radius/radius-config.js';
import { type DeliveryConfig, type GatewayPrefix, deliveryConfigOf } from './delivery/delivery-config.js';

/**
 * Every setting of the product: one table, validated at start. The rest of the code receives
 * the typed `Config`; it never reads process.env. The README's settings table mirrors SETTINGS
 * (a test keeps them in step).
 */
export const DEFAULT_CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

type GatewayField =
  'URL' | 'METHOD' | 'HEADERS' | 'BODY' | 'CONTENT_TYPE' | 'SUCCESS_STATUS' | 'SUCCESS_BODY';
interface StringSetting {
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

const limitSettings = {
  DEA_SEND_LIMIT_PER_USER: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 5 }),
    doc: 'Codes one user may have sent within DEA_SEND_LIMIT_USER_WINDOW_MINUTES (error 140 beyond).',
  },
  DEA_SEND_LIMIT_USER_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 10 }),
    doc: 'Window of the per-user send limit, counted from the first send in it.',
  },
  DEA_SEND_LIMIT_PER_RECIPIENT: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 10 }),
    doc: 'Codes sent to one phone number, address or handle within its window, whoever asks.',
  },
  DEA_SEND_LIMIT_RECIPIENT_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 60 }),
    doc: 'Window of the per-recipient send limit.',
  },
  DEA_SEND_LIMIT_PER_ADDRESS: {
    schema: Type.Integer({ minimum: 1, maximum: 100_000, default: 20 }),
    doc: 'Codes sent on requests from one client address within its window, for all users.',
  },
  DEA_SEND_LIMIT_ADDRESS_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 10 }),
    doc: 'Window of the per-client-address send limit.',
  },
  DEA_SEND_LIMIT_PER_CHANNEL_TYPE: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1000 }),
    doc: 'Global budget: codes sent over one channel type (sms, smtp, TELEPHONE, TWITTER) within its window, on all instances.',
  },
  DEA_SEND_LIMIT_CHANNEL_TYPE_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 60 }),
    doc: 'Window of the global budget per channel type.',
  },
} as const;

const deliverySettings = {
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

export const SETTINGS = {
  PORT: {
    schema: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    doc: 'TCP port of the one server (API, page, login).',
  },
  HOST: { schema: Type.String({ minLength: 1, default: '0.0.0.0' }), doc: 'Address to listen on.' },
  DEA_CONFIG_FILE: {
    schema: Type.String({ default: '' }),
    doc: 'Optional JSON file of settings, keyed by these names ({"PORT": 9000}); environment variables win over it. The CLI also takes --config <file>.',
  },
  DATABASE_URL: {
    schema: Type.String({ pattern: '^($|postgres(ql)?://)', default: '' }),
    doc: 'PostgreSQL connection URL; empty for the embedded SQLite store.',
  },
  DEA_MIGRATE: {
    schema: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
    doc: "on: the server brings the store's schema up to date at start (safe from several instances at once). off: it refuses to start on a schema that is not its own; run dea migrate yourself.",
  },
  DEA_DATA_DIR: {
    schema: Type.String({ minLength: 1, default: './data' }),
    doc: 'Folder of the embedded store and of the generated secret key file.',
  },
  DEA_DEMO: {
    schema: Type.Boolean({ default: false }),
    doc: 'Demo mode (what npm start turns on with --demo): a new, empty embedded store gets the public demo users (password demo) and /dea/outbox shows messages of channel types that go to the outbox. Never on PostgreSQL, never into a store that holds users.',
  },
  DEA_SECRET: {
    schema: Type.String({ default: '' }),
    doc: 'Server secret (at least 32 bytes, base64 or hex) from which the code-hash, cookie and sealing keys are derived. Empty: generated once into DEA_DATA_DIR/secret.key. Every instance on one PostgreSQL must share it.',
  },
  DEA_LOG_LEVEL: {
    schema: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info' },
    ),
    doc: 'Log level: fatal, error, warn, info, debug, trace or silent.',
  },
  DEA_TRUST_PROXY: {
    schema: Type.String({ default: 'false' }),
    doc: 'Reverse proxies whose X-Forwarded-For/-Proto/-Host are believed: false (none), their addresses or CIDR ranges (10.0.0.1,10.0.0.0/8, loopback), or the number of proxies in front (1). The client address is the right-most one no trusted proxy added. true is refused: it would let every client name its own address.',
  },
  DEA_COOKIE_SECURE: {
    schema: Type.Union([Type.Literal('auto'), Type.Literal('always'), Type.Literal('never')], {
      default: 'auto',
    }),
    doc: 'Secure flag of cookies: auto (when the request came over TLS), always, or never.',
  },
  DEA_CSP_IMAGE_ORIGINS: {
    schema: Type.String({ default: '' }),
    doc: "Origins besides the server's own from which branding may load images (https://cdn.example.com, comma-separated); empty: only the server and data: URLs.",
  },
  DEA_LOGIN_PATH: {
    schema: Type.String({ pattern: '^/([A-Za-z0-9._~-]+/)*$', default: '/login/' }),
    doc: 'Path of the login application.',
  },
  DEA_SESSION_IDLE_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 30, default: 30 }),
    doc: 'A session unused this long ends (NIST SP 800-63B AAL2: at most 30).',
  },
  DEA_SESSION_ABSOLUTE_HOURS: {
    schema: Type.Integer({ minimum: 1, maximum: 12, default: 12 }),
    doc: 'A session ends this long after sign-in, used or not (AAL2: at most 12).',
  },
  DEA_SIGNIN_MAX_FAILURES: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
    doc: 'Passwords checked for one user name from one client address within the window before that pair is locked; from all addresses together, before the user name is slowed down. Counted before the check, so parallel requests cannot exceed it.',
  },
  DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 20 }),
    doc: 'Passwords checked from one client address (all user names) within the window before the address is locked.',
  },
  DEA_SIGNIN_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 1440, default: 15 }),
    doc: 'Failures older than this are forgotten.',
  },
  DEA_SIGNIN_LOCK_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 1440, default: 15 }),
    doc: 'How long a locked user name or address must wait.',
  },
  DEA_SIGNIN_SLOWDOWN_MS: {
    schema: Type.Integer({ minimum: 0, maximum: 60_000, default: 500 }),
    doc: 'Once a user name has reached DEA_SIGNIN_MAX_FAILURES from all addresses, its passwords are checked at most once per this delay, doubling with each further attempt; 0: no slow-down.',
  },
  DEA_SIGNIN_SLOWDOWN_MAX_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
    doc: 'Longest delay of that slow-down: the longest the owner of a user name under attack waits on a clean address.',
  },
  DEA_REQUEST_TIMEOUT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 600, default: 30 }),
    doc: 'A request whose headers and body have not fully arrived this long after it began is answered 408 and its connection closed (checked every few seconds).',
  },
  DEA_IDLE_TIMEOUT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 600, default: 60 }),
    doc: 'A connection on which nothing arrives for this long (a stalled body, an idle keep-alive) is closed.',
  },
  DEA_BODY_LIMIT_BYTES: {
    schema: Type.Integer({ minimum: 1024, maximum: 1_048_576, default: 16_384 }),
    doc: 'Largest request body accepted; larger bodies get HTTP 400.',
  },
  DEA_TIME_ZONE: {
    schema: Type.String({ minLength: 1, default: 'UTC' }),
    doc: 'Time zone (IANA name such as Europe/Berlin) of times in messages for users without one of their own (dea user update --time-zone).',
  },
  DEA_CODE_LENGTH: {
    schema: Type.Integer({ minimum: 6, maximum: 64, default: 10 }),
    doc: 'Default code length (a policy may set its own).',
  },
  DEA_CODE_ALPHABET: {
    schema: Type.String({ minLength: 10, maxLength: 100, default: DEFAULT_CODE_ALPHABET }),
    doc: 'Default code alphabet: no 0/O, 1/I look-alikes (a policy may set its own).',
  },
  DEA_CODE_VALIDITY_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 15 }),
    doc: 'Default validity of a code in minutes.',
  },
  DEA_CODE_USES: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 1 }),
    doc: 'Default number of uses of a code.',
  },
  DEA_CODE_MAX_UNUSED: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
    doc: 'Default maximum of unused, unexpired codes a user may hold (error 148 beyond).',
  },
  DEA_PASSWORD_HASH_COST: {
    schema: Type.Integer({ minimum: 10, maximum: 20, default: 17 }),
    doc: 'scrypt cost: log2 of N (17 = 128 MiB per hash, r=8, p=1).',
  },
  DEA_PASSWORD_HASH_CONCURRENCY: {
    schema: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
    doc: "Password hashes computed at once per instance; the rest of libuv's thread pool stays free for files and the page.",
  },
  DEA_PASSWORD_HASH_QUEUE: {
    schema: Type.Integer({ minimum: 0, maximum: 10_000, default: 16 }),
    doc: 'Sign-ins that may wait for a hashing slot; beyond them a sign-in gets error 140 with Retry-After.',
  },
  DEA_DB_POOL_SIZE: {
    schema: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
    doc: 'PostgreSQL connections per instance.',
  },
  DEA_CATALOG_CACHE_SECONDS: {
    schema: Type.Integer({ minimum: 0, maximum: 3600, default: 30 }),
    doc: 'How long an instance keeps the language list and message catalogs in memory.',
  },
  DEA_WEB_DIR: {
    schema: Type.String({ default: '' }),
    doc: 'Folder of the built page and login application; empty: the one built in this checkout.',
  },
  ...limitSettings,
  ...deliverySettings,
  DEA_VERIFY_MAX_FAILURES: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
    doc: "Consecutive failed code verifications (API or RADIUS) that lock a user's codes; a success resets the count, a new code does not.",
  },
  DEA_VERIFY_LOCK_MINUTES: {
    schema: Type.Integer({ minimum: 0, maximum: 10_080, default: 15 }),
    doc: 'How long such a lock lasts (every verification fails meanwhile, consuming nothing); 0: until an operator unlocks the user.',
  },
  ...radiusSettings,
} as const;

export type SettingName = keyof typeof SETTINGS;

const SettingsSchema = Type.Object(
  Object.fromEntries(Object.entries(SETTINGS).map(([name, { schema }]) => [name, schema])) as {
    [Name in SettingName]: (typeof SETTINGS)[Name]['schema'];
  },
);

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  migrate: 'on' | 'off';
  demo: boolean;
  secret: string;
  logLevel: string;
  /** false, a hop count, or the addresses and ranges of trusted proxies (Fastify's trustProxy). */
  trustProxy: false | number | string[];
  cookieSecure: 'auto' | 'always' | 'never';
  cspImageOrigins: string[];
  loginPath: string;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  bodyLimitBytes: number;
  /** IANA time zone of times in messages for users without their own. */
  timeZone: string;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  signin: SigninThrottleSettings;
  codeDefaults: CodeDefaults;
  passwordHashCost: number;
  passwordHashing: { concurrency: number; queue: number };
  dbPoolSize: number;
  catalogCacheMs: number;
  webDir: string;
  sendLimits: SendLimitSettings;
  delivery: DeliveryConfig;
  verification: VerificationSettings;
  radius: RadiusConfig;
}

export interface CodeDefaults {
  codeLength: number;
  codeAlphabet: string;
  codeValidityMinutes: number;
  codeUses: number;
  maxUnusedCodes: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

const MINUTE = 60_000;

const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

/** The values a setting made of literals and booleans accepts; undefined for other settings. */
function choicesOf(schema: unknown): string[] | undefined {
  const variants = (schema as { anyOf?: unknown[] } | undefined)?.anyOf;
  if (!Array.isArray(variants)) return undefined;
  return variants.flatMap((variant) => {
    const { const: constant, type } = variant as { const?: unknown; type?: unknown };
    if (typeof constant === 'string' || typeof constant === 'boolean') return [String(constant)];
    return type === 'boolean' ? ['true', 'false'] : [];
  });
}

/** Names proxy-addr (Fastify's trustProxy) knows for ranges of addresses. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** DEA_TRUST_PROXY: false, a hop count, or a list of trusted proxies; never "trust everyone". */
export function trustProxyOf(text: string, problems: string[]): Config['trustProxy'] {
  const value = text.trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') {
    problems.push(
      'DEA_TRUST_PROXY="true": refused, because it believes X-Forwarded-For from any client, so each request could claim a new address and escape the per-address limits and the audit log. Name the proxies (DEA_TRUST_PROXY=10.0.0.1,10.0.0.2 or a CIDR such as 10.0.0.0/8) or their number (DEA_TRUST_PROXY=1).',
    );
    return false;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops >= 1 && hops <= 10) return hops;
    problems.push(`DEA_TRUST_PROXY="${value}": the number of proxies must be 1 to 10 (or false)`);
    return false;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isAddressOrRange(entry));
  if (bad.length > 0) {
    problems.push(
      `DEA_TRUST_PROXY="${value}": ${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`,
    );
    return false;
  }
  return entries;
}

/** A comma-separated list of origins (scheme, host, optional port; nothing else). */
function originsOf(name: string, text: string, problems: string[]): string[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(entry));
  if (bad.length > 0) {
    problems.push(
      `${name}="${text}": ${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an origin such as https://cdn.example.com`,
    );
  }
  return entries.filter((entry) => !bad.includes(entry));
}

/** The settings of a config file: its path (named in problems) and its JSON values. */
export interface ConfigFile {
  path: string;
  values: Record<string, unknown>;
}

/**
 * The file's values as setting texts, as if they came from the environment: numbers and
 * booleans as written, objects (DEA_RADIUS_CLIENTS, gateway headers) as JSON. Unknown names
 * and other values are problems.
 */
function settingTextsOfFile(file: ConfigFile, problems: string[]): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [name, value] of Object.entries(file.values)) {
    if (!Object.hasOwn(SETTINGS, name) || name === 'DEA_CONFIG_FILE') {
      problems.push(`${name} (in ${file.path}): not a setting of this product`);
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      texts[name] = String(value);
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      texts[name] = JSON.stringify(value);
    } else {
      problems.push(`${name} (in ${file.path}): must be a string, number, boolean or object`);
    }
  }
  return texts;
}

/** Reads a JSON config file; throws ConfigError when it cannot be read or is not one JSON object. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([
      `DEA_CONFIG_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    ]);
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`DEA_CONFIG_FILE: ${path} is not valid JSON (${(error as Error).message})`]);
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new ConfigError([`DEA_CONFIG_FILE: ${path} must hold one JSON object of settings`]);
  }
  return { path, values: values as Record<string, unknown> };
}

/**
 * The settings of the environment and of the config file it names (or `path`, the CLI's
 * --config), validated together: a file that cannot be read is reported with every bad setting
 * of the environment.
 */
export function loadConfigWithFile(
  env: Record<string, string | undefined>,
  path: string | undefined = env.DEA_CONFIG_FILE?.trim(),
): Config {
  if (path === undefined || path === '') return loadConfig(env);
  let file: ConfigFile;
  try {
    file = readConfigFile(path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    try {
      loadConfig(env);
    } catch (envError) {
      if (envError instanceof ConfigError) throw new ConfigError([...error.problems, ...envError.problems]);
      throw envError;
    }
    throw error;
  }
  return loadConfig(env, file);
}

/**
 * Reads the settings from an environment and, optionally, a config file's values (the
 * environment wins); throws ConfigError naming every bad field.
 */
export function loadConfig(environment: Record<string, string | undefined>, file?: ConfigFile): Config {
  const problems: string[] = [];
  const fromFile = file === undefined ? {} : settingTextsOfFile(file, problems);
  const sourceOf = (name: string): string =>
    file !== undefined && !isSet(environment[name]) && Object.hasOwn(fromFile, name)
      ? ` (in ${file.path})`
      : '';
  const env: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(environment)) if (isSet(value)) env[name] = value;
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value.trim();
  }
  const converted = Value.Convert(SettingsSchema, Value.Default(SettingsSchema, raw));
  // One line per bad setting, each checked on its own (the validator stops after a few errors
  // per call); a whole number must be written as one ('1.5' is not silently read as 1), and a
  // setting that is one of a few values names them.
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const { schema } = SETTINGS[name];
    const text = env[name]?.trim() ?? '';
    const notWhole =
      (schema as { type?: unknown }).type === 'integer' && text !== '' && !/^[+-]?\d+$/.test(text);
    const [first] = notWhole
      ? [{ message: 'must be integer' }]
      : Value.Errors(schema, (converted as Record<string, unknown>)[name]);
    if (first === undefined) continue;
    const choices = choicesOf(schema);
    problems.push(
      `${name}=${JSON.stringify(text)}${sourceOf(name)}: ${choices === undefined ? first.message : `must be one of ${choices.join(', ')}`}`,
    );
  }
  const alphabet = (converted as Record<string, unknown>).DEA_CODE_ALPHABET;
  if (typeof alphabet === 'string' && new Set(alphabet).size !== alphabet.length) {
    problems.push('DEA_CODE_ALPHABET: must not repeat a character');
  }
  const s = converted as Type.Static<typeof SettingsSchema>;
  const settingText = (name: string): string => {
    const value = (converted as Record<string, unknown>)[name];
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';
  };
  if (!isTimeZone(settingText('DEA_TIME_ZONE'))) {
    problems.push(
      `DEA_TIME_ZONE=${JSON.stringify(settingText('DEA_TIME_ZONE'))}: not a time zone such as UTC or Europe/Berlin`,
    );
  }
  const trustProxy = trustProxyOf(settingText('DEA_TRUST_PROXY'), problems);
  const cspImageOrigins = originsOf('DEA_CSP_IMAGE_ORIGINS', settingText('DEA_CSP_IMAGE_ORIGINS'), problems);
  const delivery = deliveryConfigOf(settingText, problems);
  const radius = radiusConfigOf(settingText, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: s.PORT,
    host: s.HOST,
    databaseUrl: s.DATABASE_URL === '' ? undefined : s.DATABASE_URL,
    dataDir: resolve(s.DEA_DATA_DIR),
    migrate: s.DEA_MIGRATE,
    demo: s.DEA_DEMO,
    secret: s.DEA_SECRET,
    logLevel: s.DEA_LOG_LEVEL,
    trustProxy,
    cookieSecure: s.DEA_COOKIE_SECURE,
    cspImageOrigins,
    loginPath: s.DEA_LOGIN_PATH,
    sessionIdleMs: s.DEA_SESSION_IDLE_MINUTES * MINUTE,
    sessionAbsoluteMs: s.DEA_SESSION_ABSOLUTE_HOURS * 60 * MINUTE,
    bodyLimitBytes: s.DEA_BODY_LIMIT_BYTES,
    timeZone: s.DEA_TIME_ZONE,
    requestTimeoutMs: s.DEA_REQUEST_TIMEOUT_SECONDS * 1000,
    idleTimeoutMs: s.DEA_IDLE_TIMEOUT_SECONDS * 1000,
    signin: {
      userLockAfter: s.DEA_SIGNIN_MAX_FAILURES,
      addressLockAfter: s.DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS,
      windowMs: s.DEA_SIGNIN_WINDOW_MINUTES * MINUTE,
      lockMs: s.DEA_SIGNIN_LOCK_MINUTES * MINUTE,
      slowdownMs: s.DEA_SIGNIN_SLOWDOWN_MS,
      slowdownMaxMs: s.DEA_SIGNIN_SLOWDOWN_MAX_SECONDS * 1000,
    },
    codeDefaults: {
      codeLength: s.DEA_CODE_LENGTH,
      codeAlphabet: s.DEA_CODE_ALPHABET,
      codeValidityMinutes: s.DEA_CODE_VALIDITY_MINUTES,
      codeUses: s.DEA_CODE_USES,
      maxUnusedCodes: s.DEA_CODE_MAX_UNUSED,
    },
    passwordHashCost: s.DEA_PASSWORD_HASH_COST,
    passwordHashing: { concurrency: s.DEA_PASSWORD_HASH_CONCURRENCY, queue: s.DEA_PASSWORD_HASH_QUEUE },
    dbPoolSize: s.DEA_DB_POOL_SIZE,
    catalogCacheMs: s.DEA_CATALOG_CACHE_SECONDS * 1000,
    webDir: s.DEA_WEB_DIR,
    sendLimits: {
      perUser: { max: s.DEA_SEND_LIMIT_PER_USER, windowMs: s.DEA_SEND_LIMIT_USER_WINDOW_MINUTES * MINUTE },
      perRecipient: {
        max: s.DEA_SEND_LIMIT_PER_RECIPIENT,
        windowMs: s.DEA_SEND_LIMIT_RECIPIENT_WINDOW_MINUTES * MINUTE,
      },
      perAddress: {
        max: s.DEA_SEND_LIMIT_PER_ADDRESS,
        windowMs: s.DEA_SEND_LIMIT_ADDRESS_WINDOW_MINUTES * MINUTE,
      },
      perChannelType: {
        max: s.DEA_SEND_LIMIT_PER_CHANNEL_TYPE,
        windowMs: s.DEA_SEND_LIMIT_CHANNEL_TYPE_WINDOW_MINUTES * MINUTE,
      },
    },
    delivery,
    verification: {
      maxFailures: s.DEA_VERIFY_MAX_FAILURES,
      lockMs: s.DEA_VERIFY_LOCK_MINUTES === 0 ? null : s.DEA_VERIFY_LOCK_MINUTES * MINUTE,
    },
    radius,
  };
}
