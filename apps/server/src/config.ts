import type { DatabaseTimeouts } from './store/open-store.js';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { isTimeZone } from './domain/identity/time-zone.js';
import { secretBytesOf } from './crypto/secret-keys.js';
import { resolve } from 'node:path';
import Type from 'typebox';
import Value from 'typebox/value';
import { type CodeDefaults, codeConfigOf, codeSettings } from './domain/codes/code-settings.js';
import type { SendLimitSettings } from './domain/channels/send-limits.js';
import { sendLimitSettings, sendLimitsOf } from './domain/channels/send-limit-settings.js';
import { type SignInConfig, signInConfigOf, signinSettings } from './domain/page/sign-in-settings.js';
import type { VerificationSettings } from './domain/codes/verification.js';
import { type RadiusConfig, radiusConfigOf, radiusSettings } from './radius/radius-config.js';
import type { ConsoleAuthSettings } from './domain/console/console-auth.js';
import { consoleEnrolmentConfigOf, consoleEnrolmentSettings } from './domain/console/console-settings.js';
import {
  type ConsoleDirectoryConfig,
  consoleDirectoryConfigOf,
  consoleDirectorySettings,
} from './directory/console-directory-settings.js';
import { passwordLinkMsOf, passwordLinkSettings } from './domain/identity/password-link-settings.js';
import {
  channelRegistrationConfigOf,
  channelRegistrationSettings,
  type ChannelRegistrationConfig,
} from './domain/channels/channel-registration-settings.js';
import {
  registrationOidcConfigOf,
  registrationOidcSettings,
  type RegistrationOidcConfig,
} from './domain/registration/registration-oidc-settings.js';
import {
  type ConsoleOidcConfig,
  consoleOidcConfigOf,
  consoleOidcSettings,
} from './domain/console/console-oidc-settings.js';
import { isAddressOrRange, tooWideForProxies } from './net/address-ranges.js';
import { isOpenFile, OpenPrivateFileError } from './files/private-files.js';
import { addressCarriesSecret, SECRET_SETTINGS } from './domain/settings/effective-settings.js';
import { SECRET_FILE_SETTINGS, withSecretFiles } from './secret-setting-files.js';
import { readSettingsFiles, type SettingsFiles } from './settings-files.js';
import {
  type WebhookConfig,
  webhookConfigOf,
  webhookDestinationsOf,
  webhookSettings,
} from './webhooks/webhook-settings.js';
import {
  type ValidateCheckConfig,
  validateCheckConfigOf,
  validateCheckSettings,
} from './validate-check/validate-check-settings.js';
import { type DeliveryConfig, deliveryConfigOf } from './delivery/delivery-config.js';
import { deliverySettings } from './delivery/delivery-settings.js';
import {
  type RetentionConfig,
  retentionConfigOf,
  retentionSettings,
} from './domain/retention/retention-settings.js';
import {
  type ProvisioningConfig,
  provisioningConfigOf,
  provisioningSettings,
} from './domain/identity/provisioning-settings.js';
import { type ListenerConfig, listenerConfigOf, listenerSettings } from './http/listener-settings.js';
import {
  type AuditExportConfig,
  auditDestinationsOf,
  auditExportConfigOf,
  auditExportSettings,
} from './audit-export/audit-export-settings.js';
import {
  type DirectoryConfig,
  directoryConfigOf,
  directorySettings,
} from './directory/directory-settings.js';

/**
 * Every setting of the product: one table, validated at start. The rest of the code receives
 * the typed `Config`; it never reads process.env. The settings reference (docs/reference/settings.md) mirrors SETTINGS
 * (a test keeps them in step).
 */

export const SETTINGS = {
  PORT: {
    schema: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    doc: 'TCP port of the one server (API, page, login).',
  },
  HOST: { schema: Type.String({ minLength: 1, default: '0.0.0.0' }), doc: 'Address to listen on.' },
  ...listenerSettings,
  DEA_CONFIG_FILE: {
    schema: Type.String({ default: '' }),
    doc: 'Optional JSON file of settings, keyed by these names ({"PORT": 9000}); environment variables win over it. The CLI also takes --config <file>. A secret setting in it (DEA_SECRET, DEA_SMTP_PASSWORD, ...) is refused when its group or others may read the file (chmod 600).',
  },
  DEA_SETTINGS_FILES: {
    schema: Type.String({ default: '' }),
    doc: "Settings files of NAME=value lines (systemd's EnvironmentFile form), read in this order, a later one winning; DEA_CONFIG_FILE and the environment win over them. Paths separated by ':', each a file or a folder (its *.env files in name order); a path written with a leading - may be missing. A file that cannot be read stops the start, naming it and its mode; a name that is not a setting of this release is said at start and has no effect. A secret setting in a file its group or others may read is refused, except a root-owned file the service reads through its group (root:dea 0640). The package sets /usr/lib/dea/dea.env:/etc/dea/dea.env:-/etc/dea/dea.env.d (docs/operator/configure.md).",
  },
  DATABASE_URL: {
    schema: Type.String({ pattern: '^($|postgres(ql)?://)', default: '' }),
    doc: 'PostgreSQL connection URL; empty for the embedded SQLite store.',
  },
  ...SECRET_FILE_SETTINGS,
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
    doc: 'Demo mode (what npm start turns on with --demo): a new, empty embedded store gets the public demo users (password demo) and /dea/outbox shows messages of channel types that go to the outbox. Off on PostgreSQL and on a store that holds any user besides the demo users (the start says so).',
  },
  DEA_SECRET: {
    schema: Type.String({ default: '' }),
    doc: 'Server secret (at least 32 bytes, base64 or hex) from which the code-hash, cookie and sealing keys are derived. Empty: generated once into DEA_DATA_DIR/secret.key (mode 600; refused when its group or others may read it). Every instance on one PostgreSQL must share it.',
  },
  DEA_SECRET_PREVIOUS: {
    schema: Type.String({ default: '' }),
    doc: 'While DEA_SECRET is being replaced: the secret it replaces (or, during the first step of a rotation across instances, the one that will replace it). What was made with it (unused codes, sessions, service keys, sealed outbox messages) keeps working; nothing new is made with it. npx dea secret status tells when it can go (docs/operator/upgrades.md, Replacing the secret).',
  },
  DEA_LOG_LEVEL: {
    schema: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info' },
    ),
    doc: 'Log level: fatal, error, warn, info, debug, trace or silent.',
  },
  DEA_REQUEST_LOG_WAIT_MS: {
    schema: Type.Integer({ minimum: 0, maximum: 10000, default: 1000 }),
    doc: "Each request's log line may wait in memory this long (or until 4 KiB of them wait, or another line is logged) and is written with the others in one write, instead of one write per request. Every other line is written at once, after the request lines before it, and what waits is written when the server exits; a server killed by a signal it does not handle (SIGKILL, SIGQUIT) or aborted (out of memory) loses at most this long of request lines. 0 writes each line at once.",
  },
  DEA_TRUST_PROXY: {
    schema: Type.String({ default: 'false' }),
    doc: 'Reverse proxies whose X-Forwarded-For/-Proto/-Host are believed: false (none), their addresses or CIDR ranges (10.0.0.1,10.0.0.0/8, loopback), or the number of proxies in front (1). The client address is the right-most one no trusted proxy added. true is refused: it would let every client name its own address; so are ranges that together cover more than a /8 of public IPv4 or a /32 of public IPv6 addresses (private, loopback and link-local ranges do not count).',
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
  DEA_CONSOLE_IDLE_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 30, default: 15 }),
    doc: 'A console session unused this long ends.',
  },
  DEA_CONSOLE_PASSKEY_FRESH_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 60, default: 5 }),
    doc: 'How long a passkey check in the console counts before issuing a code for a caller asks for it again.',
  },
  ...consoleEnrolmentSettings,
  ...consoleOidcSettings,
  ...consoleDirectorySettings,
  ...passwordLinkSettings,
  ...channelRegistrationSettings,
  ...registrationOidcSettings,
  DEA_SESSION_ABSOLUTE_HOURS: {
    schema: Type.Integer({ minimum: 1, maximum: 12, default: 12 }),
    doc: 'A session ends this long after sign-in, used or not (AAL2: at most 12).',
  },
  DEA_REQUEST_TIMEOUT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 600, default: 30 }),
    doc: 'A request whose headers and body have not fully arrived this long after it began is answered 408 and its connection closed (checked every second; on the public, TLS and management listeners alike).',
  },
  DEA_SHUTDOWN_DRAIN_SECONDS: {
    schema: Type.Integer({ minimum: 0, maximum: 300, default: 5 }),
    doc: 'On SIGTERM or SIGINT, /readyz answers 503 for this long while requests are still served, so a load balancer takes the instance out of rotation before it stops listening; then the listener closes and the requests under way finish. A second signal skips the rest of the wait.',
  },
  DEA_IDLE_TIMEOUT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 600, default: 60 }),
    doc: 'A connection on which nothing arrives for this long (a stalled body, an idle keep-alive) is closed, on every listener; a TLS handshake must finish within this or DEA_REQUEST_TIMEOUT_SECONDS, whichever is shorter.',
  },
  DEA_BODY_LIMIT_BYTES: {
    schema: Type.Integer({ minimum: 1024, maximum: 1_048_576, default: 16_384 }),
    doc: 'Largest request body accepted; larger bodies get HTTP 400.',
  },
  DEA_TIME_ZONE: {
    schema: Type.String({ minLength: 1, default: 'UTC' }),
    doc: 'Time zone (IANA name such as Europe/Berlin) of times in messages for users without one of their own (dea user update --time-zone).',
  },
  DEA_DB_START_WAIT_SECONDS: {
    schema: Type.Integer({ minimum: 0, maximum: 86_400, default: 300 }),
    doc: 'A server that starts while PostgreSQL cannot be reached yet (starting, restarting, failing over) tries again for this long, logging each cause, before it gives up; 0: no second try. A wrong password or a missing database stop the start at once. The CLI never waits.',
  },
  DEA_DB_CONNECT_TIMEOUT_MS: {
    schema: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000 }),
    doc: 'Longest wait for a PostgreSQL connection, new or from the pool; then the call answers 503.',
  },
  DEA_DB_STATEMENT_TIMEOUT_MS: {
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    doc: 'Longest a PostgreSQL statement may run: the server cancels it (statement_timeout), a transaction left idle that long is ended, and the client gives up 2 s later (a frozen or unreachable server); the call answers 503. Migrations are bounded by it per statement.',
  },
  DEA_DB_LOCK_TIMEOUT_MS: {
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 5000 }),
    doc: 'Longest a PostgreSQL statement waits for a row or table lock (lock_timeout).',
  },
  DEA_DB_SERVER_TIMEOUTS: {
    schema: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
    doc: 'on: the statement, lock and idle-in-transaction timeouts go as connection parameters. off behind a pooler that refuses them (PgBouncer): set them on the role instead (docs/operator/postgresql.md, Running on PostgreSQL); the client-side bound stays.',
  },
  DEA_DB_PREPARED_STATEMENTS: {
    schema: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
    doc: 'on: the hottest statements (a session, a policy and the channels of the users of one moment; code issues) are named prepared statements, parsed and planned once per connection. off behind PgBouncer before 1.21 in transaction mode (from 1.21 set its max_prepared_statements instead); a server that finds its statements gone turns them off by itself and logs this setting.',
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
  ...signinSettings,
  ...codeSettings,
  ...sendLimitSettings,
  ...deliverySettings,
  ...radiusSettings,
  ...validateCheckSettings,
  ...webhookSettings,
  ...directorySettings,
  ...provisioningSettings,
  ...retentionSettings,
  ...auditExportSettings,
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
  /** DEA_SECRET_PREVIOUS: a secret whose material is still accepted; empty: none. */
  secretPrevious: string;
  logLevel: string;
  /** DEA_REQUEST_LOG_WAIT_MS: how long a request's log line may wait to be written with others. */
  requestLogWaitMs: number;
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
  /** How long a stopping instance answers /readyz 503 before it closes its listener. */
  shutdownDrainMs: number;
  signin: SignInConfig['signin'];
  codeDefaults: CodeDefaults;
  passwordHashCost: number;
  passwordHashing: SignInConfig['passwordHashing'];
  signInBulkheads: SignInConfig['signInBulkheads'];
  dbPoolSize: number;
  /** How long a starting server waits for a store it cannot reach yet. */
  dbStartWaitMs: number;
  /** Bounds on PostgreSQL's answers (store/open-store.ts). */
  dbTimeouts: DatabaseTimeouts;
  /** Hot statements as named prepared statements on PostgreSQL. */
  dbPreparedStatements: boolean;
  catalogCacheMs: number;
  webDir: string;
  sendLimits: SendLimitSettings;
  delivery: DeliveryConfig;
  verification: VerificationSettings;
  /** How long the answer of a verification asked with an Idempotency-Key is kept (domain/codes/retried-requests.ts). */
  verifyIdempotencyMs: number;
  radius: RadiusConfig;
  /** The console's session limits, enrolment links and allowed authenticators. */
  console: ConsoleAuthSettings;
  /** The console's sign-in with an OpenID provider; undefined: local console accounts only. */
  consoleOidc: ConsoleOidcConfig | undefined;
  /** Console roles from directory groups (DEA_CONSOLE_LDAP_ROLES); undefined: none mapped. */
  consoleDirectory: ConsoleDirectoryConfig | undefined;
  /** How long a one-time link to set a user's password stays valid (DEA_PASSWORD_LINK_HOURS). */
  passwordLinkMs: number;
  /** People proving the addresses they register (domain/channels/channel-proof.ts). */
  channelRegistration: ChannelRegistrationConfig;
  /** The identity provider as a strong sign-in for registration; undefined: not offered. */
  registrationOidc: RegistrationOidcConfig | undefined;
  /** Every setting's value as it took effect (defaults included), for the console's read-only view. */
  settingValues: Readonly<Record<string, unknown>>;
  /** Who may call POST /validate/check without a service key. */
  validateCheck: ValidateCheckConfig;
  /** The HTTPS webhooks of chosen audit events; undefined without DEA_WEBHOOKS. */
  webhooks: WebhookConfig | undefined;
  /** The organisation's directory as a source of users; undefined: local users only. */
  directory: DirectoryConfig | undefined;
  /** How the sync and the import write users (batches). */
  provisioning: ProvisioningConfig;
  /** What the purge removes and when (domain/retention/retention.ts). */
  retention: RetentionConfig;
  /** Native TLS and the management port. */
  listeners: ListenerConfig;
  /** Where audit entries also go; undefined: only the store. */
  auditExport: AuditExportConfig | undefined;
  /** The settings files read (DEA_SETTINGS_FILES) and what the start says of them. */
  settingsFiles: { read: string[]; notices: string[] };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

const MINUTE = 60_000;

/** No settings files: what loadConfig reads without DEA_SETTINGS_FILES. */
const NO_SETTINGS_FILES: SettingsFiles = { read: [], values: {}, sources: {}, notices: [], problems: [] };

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
  const tooWide = tooWideForProxies(entries);
  if (tooWide !== undefined) {
    problems.push(
      `DEA_TRUST_PROXY="${value}": refused, because ${tooWide}: any client there could put any address in X-Forwarded-For and escape the per-address limits and the audit log. Name only your proxies' own addresses or ranges (private ranges such as 10.0.0.0/8 or uniquelocal may be trusted whole), or their number (DEA_TRUST_PROXY=1).`,
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
  /** Its mode when its group or others may read or change it (it must not hold a secret then). */
  openMode?: number;
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
    } else if (
      file.openMode !== undefined &&
      value !== '' &&
      (SECRET_SETTINGS.has(name) ||
        (name.endsWith('_URL') && typeof value === 'string' && addressCarriesSecret(value)))
    ) {
      problems.push(
        `${name} (in ${file.path}): ${new OpenPrivateFileError(file.path, file.openMode, 'DEA_CONFIG_FILE ').message}, or keep the secret in the environment`,
      );
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
  let stat: { mode: number; uid: number };
  try {
    const descriptor = openSync(path, 'r');
    try {
      stat = fstatSync(descriptor);
      text = readFileSync(descriptor, 'utf8');
    } finally {
      closeSync(descriptor);
    }
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
  return {
    path,
    values: values as Record<string, unknown>,
    ...(isOpenFile(stat) && { openMode: stat.mode & 0o7777 }),
  };
}

/** Whether a settings file may name it: a setting of this release but the list of files itself. */
const settableInFiles = (name: string): boolean =>
  Object.hasOwn(SETTINGS, name) && name !== 'DEA_SETTINGS_FILES';

/**
 * The settings of the environment, of the settings files it lists (DEA_SETTINGS_FILES) and of the
 * config file it or they name (or `path`, the CLI's --config), validated together: a file that
 * cannot be read is reported with every bad setting of the environment.
 */
export function loadConfigWithFile(env: Record<string, string | undefined>, path?: string): Config {
  const settingsFiles = readSettingsFiles(env.DEA_SETTINGS_FILES?.trim() ?? '', settableInFiles);
  const configPath =
    path ??
    (isSet(env.DEA_CONFIG_FILE?.trim())
      ? env.DEA_CONFIG_FILE?.trim()
      : settingsFiles.values.DEA_CONFIG_FILE?.trim());
  if (configPath === undefined || configPath === '') return loadConfig(env, undefined, settingsFiles);
  let file: ConfigFile;
  try {
    file = readConfigFile(configPath);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    try {
      loadConfig(env, undefined, settingsFiles);
    } catch (envError) {
      if (envError instanceof ConfigError) throw new ConfigError([...error.problems, ...envError.problems]);
      throw envError;
    }
    throw error;
  }
  return loadConfig(env, file, settingsFiles);
}

/**
 * A settings file's values that may be used: a secret in a file its group or others may read is
 * a problem (as in DEA_CONFIG_FILE), and left out.
 */
function usableFileValues(files: SettingsFiles, problems: string[]): Record<string, string> {
  const usable: Record<string, string> = {};
  for (const [name, value] of Object.entries(files.values)) {
    const source = files.sources[name];
    const secret =
      value !== '' && (SECRET_SETTINGS.has(name) || (name.endsWith('_URL') && addressCarriesSecret(value)));
    if (secret && source?.openMode !== undefined) {
      problems.push(
        `${name} (${source.path} line ${source.line}): ${new OpenPrivateFileError(source.path, source.openMode, 'the settings file ').message}, or give it the service's group (chgrp dea; chmod 640)`,
      );
      continue;
    }
    usable[name] = value;
  }
  return usable;
}

/**
 * Reads the settings from an environment and, optionally, a config file's values (the
 * environment wins); throws ConfigError naming every bad field.
 */
export function loadConfig(
  environment: Record<string, string | undefined>,
  file?: ConfigFile,
  settingsFiles: SettingsFiles = NO_SETTINGS_FILES,
): Config {
  const problems: string[] = [...settingsFiles.problems];
  const fromSettingsFiles = usableFileValues(settingsFiles, problems);
  const fromFile = file === undefined ? {} : settingTextsOfFile(file, problems);
  const sourceOf = (name: string): string => {
    if (isSet(environment[name])) return '';
    if (file !== undefined && Object.hasOwn(fromFile, name)) return ` (in ${file.path})`;
    const source = settingsFiles.sources[name];
    return source === undefined ? '' : ` (${source.path} line ${source.line})`;
  };
  const merged: Record<string, string | undefined> = { ...fromSettingsFiles, ...fromFile };
  for (const [name, value] of Object.entries(environment)) if (isSet(value)) merged[name] = value;
  const env = withSecretFiles(merged, problems);
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value.trim();
  }
  // The given values converted, then the defaults filled in (each already of its type,
  // config.test.ts): converting all 188 settings after the defaults cost about three times as much.
  const converted = Value.Default(SettingsSchema, Value.Convert(SettingsSchema, raw));
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
  const s = converted as Type.Static<typeof SettingsSchema>;
  // Each area turns its own typed values into its part of the configuration.
  const codes = codeConfigOf(s, problems);
  const signIn = signInConfigOf(s);
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
  const previousSecret = s.DEA_SECRET_PREVIOUS.trim();
  if (previousSecret !== '' && secretBytesOf(previousSecret) === undefined) {
    problems.push('DEA_SECRET_PREVIOUS: must hold at least 32 bytes, in base64 or hex, as DEA_SECRET does');
  } else if (previousSecret !== '' && previousSecret === s.DEA_SECRET.trim()) {
    problems.push(
      'DEA_SECRET_PREVIOUS: is DEA_SECRET itself; set it to the secret being replaced, or leave it empty',
    );
  }
  const trustProxy = trustProxyOf(settingText('DEA_TRUST_PROXY'), problems);
  const cspImageOrigins = originsOf('DEA_CSP_IMAGE_ORIGINS', settingText('DEA_CSP_IMAGE_ORIGINS'), problems);
  const delivery = deliveryConfigOf(settingText, problems);
  const radius = radiusConfigOf(settingText, problems);
  const validateCheck = validateCheckConfigOf(settingText, problems);
  const webhooks = webhookConfigOf(settingText, problems);
  const directory = directoryConfigOf(s, problems);
  const listeners = listenerConfigOf(s, problems);
  const auditExport = auditExportConfigOf(s, problems);
  const consoleEnrolment = consoleEnrolmentConfigOf(s, s.PORT, problems);
  const consoleOidc = consoleOidcConfigOf(s, problems);
  const consoleDirectory = consoleDirectoryConfigOf(s, directory !== undefined, problems);
  const channelRegistration = channelRegistrationConfigOf(s, s.PORT, problems);
  const registrationOidc = registrationOidcConfigOf(s, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: s.PORT,
    host: s.HOST,
    databaseUrl: s.DATABASE_URL === '' ? undefined : s.DATABASE_URL,
    dataDir: resolve(s.DEA_DATA_DIR),
    migrate: s.DEA_MIGRATE,
    demo: s.DEA_DEMO,
    secret: s.DEA_SECRET,
    secretPrevious: s.DEA_SECRET_PREVIOUS.trim(),
    logLevel: s.DEA_LOG_LEVEL,
    requestLogWaitMs: s.DEA_REQUEST_LOG_WAIT_MS,
    trustProxy,
    cookieSecure: s.DEA_COOKIE_SECURE,
    cspImageOrigins,
    loginPath: s.DEA_LOGIN_PATH,
    sessionIdleMs: s.DEA_SESSION_IDLE_MINUTES * MINUTE,
    console: {
      idleMs: s.DEA_CONSOLE_IDLE_MINUTES * MINUTE,
      passkeyFreshMs: s.DEA_CONSOLE_PASSKEY_FRESH_MINUTES * MINUTE,
      ...consoleEnrolment,
    },
    consoleOidc,
    consoleDirectory,
    passwordLinkMs: passwordLinkMsOf(s),
    channelRegistration,
    registrationOidc,
    sessionAbsoluteMs: s.DEA_SESSION_ABSOLUTE_HOURS * 60 * MINUTE,
    bodyLimitBytes: s.DEA_BODY_LIMIT_BYTES,
    timeZone: s.DEA_TIME_ZONE,
    requestTimeoutMs: s.DEA_REQUEST_TIMEOUT_SECONDS * 1000,
    idleTimeoutMs: s.DEA_IDLE_TIMEOUT_SECONDS * 1000,
    shutdownDrainMs: s.DEA_SHUTDOWN_DRAIN_SECONDS * 1000,
    ...signIn,
    // Sign-in's share leaves at least one connection of the pool to everything else.
    signInBulkheads: {
      ...signIn.signInBulkheads,
      storeConnections: Math.min(
        signIn.signInBulkheads.storeConnections,
        Math.max(1, s.DEA_DB_POOL_SIZE - 1),
      ),
    },
    codeDefaults: codes.codeDefaults,
    dbPoolSize: s.DEA_DB_POOL_SIZE,
    dbStartWaitMs: s.DEA_DB_START_WAIT_SECONDS * 1000,
    dbTimeouts: {
      connectMs: s.DEA_DB_CONNECT_TIMEOUT_MS,
      statementMs: s.DEA_DB_STATEMENT_TIMEOUT_MS,
      lockMs: s.DEA_DB_LOCK_TIMEOUT_MS,
      serverSide: s.DEA_DB_SERVER_TIMEOUTS === 'on',
    },
    dbPreparedStatements: s.DEA_DB_PREPARED_STATEMENTS === 'on',
    catalogCacheMs: s.DEA_CATALOG_CACHE_SECONDS * 1000,
    webDir: s.DEA_WEB_DIR,
    sendLimits: sendLimitsOf(s),
    delivery,
    verification: codes.verification,
    verifyIdempotencyMs: codes.verifyIdempotencyMs,
    radius,
    validateCheck,
    webhooks,
    directory,
    provisioning: provisioningConfigOf(s),
    retention: retentionConfigOf(s),
    listeners,
    auditExport,
    settingValues: { ...(converted as Record<string, unknown>) },
    settingsFiles: { read: settingsFiles.read, notices: settingsFiles.notices },
  };
}

/**
 * Every destination the audit trail is exported to: syslog, HTTPS, the file and each event's webhook.
 * The retention purge keeps an entry until each of them received it.
 */
export function exportDestinationsOf(config: {
  auditExport: AuditExportConfig | undefined;
  webhooks: WebhookConfig | undefined;
}): string[] {
  return [...auditDestinationsOf(config.auditExport), ...webhookDestinationsOf(config.webhooks)];
}
