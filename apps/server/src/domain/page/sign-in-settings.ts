import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';
import type { SigninThrottleSettings } from './signin-throttle.js';

/** The settings of signing in: its limits (ADR 0008) and password hashing. */
/** scrypt's cost, log2 of N: 17 is 128 MiB and about 0.3 s per hash here (ADR 0014). */
export const DEFAULT_PASSWORD_HASH_COST = 17;

export const signinSettings = {
  DEA_SIGNIN_MAX_FAILURES: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
    doc: 'Passwords checked for one user name from one client address within the window before that pair is locked; from all addresses together, before the user name is slowed down. Counted before the check, so parallel requests cannot exceed it.',
  },
  DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 20 }),
    doc: 'Passwords checked from one client address (all user names) within the window before the address is slowed down: then a user name that failed from it is checked at most once per DEA_SIGNIN_SLOWDOWN_MS, doubling up to DEA_SIGNIN_LOCK_MINUTES (the whole lock time when the slow-down is 0), while a user name that has not failed from it is checked as usual.',
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
  DEA_PASSWORD_HASH_COST: {
    schema: Type.Integer({ minimum: 10, maximum: 20, default: DEFAULT_PASSWORD_HASH_COST }),
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
  DEA_SIGNIN_MAX_IN_FLIGHT: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 24 }),
    doc: 'Sign-ins (page, RADIUS) in progress at once per instance; beyond them a sign-in gets error 140 with Retry-After before it does any work, so a burst cannot take what verification and the page need.',
  },
  DEA_SIGNIN_DB_CONNECTIONS: {
    schema: Type.Integer({ minimum: 1, maximum: 200, default: 3 }),
    doc: "Of DEA_DB_POOL_SIZE, the connections sign-in's store work may hold at once (at most DEA_DB_POOL_SIZE - 1; with a pool of 1, that one); the others stay free for verification and the page. On the embedded store: sign-in's store calls in progress at once. A sign-in that waits longer than DEA_DB_CONNECT_TIMEOUT_MS for one gets 503 with Retry-After.",
  },
} as const;

const MINUTE = 60_000;

export interface SignInConfig {
  signin: SigninThrottleSettings;
  passwordHashCost: number;
  passwordHashing: { concurrency: number; queue: number };
  /** The bounds of domain/bulkheads.ts. */
  signInBulkheads: { maxInFlight: number; storeConnections: number };
}

/** The sign-in part of the configuration, from the typed setting values. */
export function signInConfigOf(values: SettingValues<typeof signinSettings>): SignInConfig {
  return {
    signin: {
      userLockAfter: values.DEA_SIGNIN_MAX_FAILURES,
      addressLockAfter: values.DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS,
      windowMs: values.DEA_SIGNIN_WINDOW_MINUTES * MINUTE,
      lockMs: values.DEA_SIGNIN_LOCK_MINUTES * MINUTE,
      slowdownMs: values.DEA_SIGNIN_SLOWDOWN_MS,
      slowdownMaxMs: values.DEA_SIGNIN_SLOWDOWN_MAX_SECONDS * 1000,
    },
    passwordHashCost: values.DEA_PASSWORD_HASH_COST,
    passwordHashing: {
      concurrency: values.DEA_PASSWORD_HASH_CONCURRENCY,
      queue: values.DEA_PASSWORD_HASH_QUEUE,
    },
    signInBulkheads: {
      maxInFlight: values.DEA_SIGNIN_MAX_IN_FLIGHT,
      storeConnections: values.DEA_SIGNIN_DB_CONNECTIONS,
    },
  };
}
