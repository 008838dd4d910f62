import { resolve } from 'node:path';
import Type from 'typebox';
import Value from 'typebox/value';
import type { SigninThrottleSettings } from './domain/signin-throttle.js';

/**
 * Every setting of the product: one table, validated at start. The rest of the code receives
 * the typed `Config`; it never reads process.env. The README's settings table mirrors SETTINGS
 * (a test keeps them in step).
 */
export const DEFAULT_CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

export const SETTINGS = {
  PORT: {
    schema: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    doc: 'TCP port of the one server (API, page, login).',
  },
  HOST: { schema: Type.String({ minLength: 1, default: '0.0.0.0' }), doc: 'Address to listen on.' },
  DATABASE_URL: {
    schema: Type.String({ pattern: '^($|postgres(ql)?://)', default: '' }),
    doc: 'PostgreSQL connection URL; empty for the embedded SQLite store.',
  },
  DEA_DATA_DIR: {
    schema: Type.String({ minLength: 1, default: './data' }),
    doc: 'Folder of the embedded store and of the generated secret key file.',
  },
  DEA_DEMO: {
    schema: Type.Union([Type.Literal('auto'), Type.Boolean()], { default: 'auto' }),
    doc: 'Seed demo users into an empty embedded store: auto (embedded store only), true or false. Never on PostgreSQL.',
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
    schema: Type.Boolean({ default: false }),
    doc: 'Trust X-Forwarded-For/-Proto from a reverse proxy (client address, TLS detection).',
  },
  DEA_COOKIE_SECURE: {
    schema: Type.Union([Type.Literal('auto'), Type.Literal('always'), Type.Literal('never')], {
      default: 'auto',
    }),
    doc: 'Secure flag of cookies: auto (when the request came over TLS), always, or never.',
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
    doc: 'Failed sign-ins for one user name within the window that lock it.',
  },
  DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 20 }),
    doc: 'Failed sign-ins from one client address within the window that lock the address.',
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
    schema: Type.Integer({ minimum: 0, maximum: 8000, default: 500 }),
    doc: 'Delay added to a failed answer from the third failure on, doubling each time (at most 8 s).',
  },
  DEA_BODY_LIMIT_BYTES: {
    schema: Type.Integer({ minimum: 1024, maximum: 1_048_576, default: 16_384 }),
    doc: 'Largest request body accepted; larger bodies get HTTP 400.',
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
  demo: 'auto' | boolean;
  secret: string;
  logLevel: string;
  trustProxy: boolean;
  cookieSecure: 'auto' | 'always' | 'never';
  loginPath: string;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  bodyLimitBytes: number;
  signin: SigninThrottleSettings;
  codeDefaults: CodeDefaults;
  passwordHashCost: number;
  dbPoolSize: number;
  catalogCacheMs: number;
  webDir: string;
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

/** Reads the settings from an environment; throws ConfigError naming every bad field. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value.trim();
  }
  const converted = Value.Convert(SettingsSchema, Value.Default(SettingsSchema, raw));
  const problems = Value.Errors(SettingsSchema, converted).map((error) => {
    const name = error.instancePath.replace(/^\//, '') || 'settings';
    return `${name}=${JSON.stringify(raw[name] ?? '')}: ${error.message}`;
  });
  const alphabet = (converted as Record<string, unknown>).DEA_CODE_ALPHABET;
  if (typeof alphabet === 'string' && new Set(alphabet).size !== alphabet.length) {
    problems.push('DEA_CODE_ALPHABET: must not repeat a character');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const s = converted as Type.Static<typeof SettingsSchema>;
  return {
    port: s.PORT,
    host: s.HOST,
    databaseUrl: s.DATABASE_URL === '' ? undefined : s.DATABASE_URL,
    dataDir: resolve(s.DEA_DATA_DIR),
    demo: s.DEA_DEMO,
    secret: s.DEA_SECRET,
    logLevel: s.DEA_LOG_LEVEL,
    trustProxy: s.DEA_TRUST_PROXY,
    cookieSecure: s.DEA_COOKIE_SECURE,
    loginPath: s.DEA_LOGIN_PATH,
    sessionIdleMs: s.DEA_SESSION_IDLE_MINUTES * MINUTE,
    sessionAbsoluteMs: s.DEA_SESSION_ABSOLUTE_HOURS * 60 * MINUTE,
    bodyLimitBytes: s.DEA_BODY_LIMIT_BYTES,
    signin: {
      userLockAfter: s.DEA_SIGNIN_MAX_FAILURES,
      addressLockAfter: s.DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS,
      windowMs: s.DEA_SIGNIN_WINDOW_MINUTES * MINUTE,
      lockMs: s.DEA_SIGNIN_LOCK_MINUTES * MINUTE,
      slowdownMs: s.DEA_SIGNIN_SLOWDOWN_MS,
    },
    codeDefaults: {
      codeLength: s.DEA_CODE_LENGTH,
      codeAlphabet: s.DEA_CODE_ALPHABET,
      codeValidityMinutes: s.DEA_CODE_VALIDITY_MINUTES,
      codeUses: s.DEA_CODE_USES,
      maxUnusedCodes: s.DEA_CODE_MAX_UNUSED,
    },
    passwordHashCost: s.DEA_PASSWORD_HASH_COST,
    dbPoolSize: s.DEA_DB_POOL_SIZE,
    catalogCacheMs: s.DEA_CATALOG_CACHE_SECONDS * 1000,
    webDir: s.DEA_WEB_DIR,
  };
}
