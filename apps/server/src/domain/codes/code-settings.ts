import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';
import type { VerificationSettings } from './verification.js';

/** No 0/O and 1/I look-alikes: codes are read aloud and typed on phones. */
export const DEFAULT_CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** The defaults of codes (a group's policy may set its own) and of their verification. */
export const codeSettings = {
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
  DEA_VERIFY_MAX_FAILURES: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
    doc: "Consecutive failed code verifications (API or RADIUS) that lock a user's codes; a success resets the count, a new code does not.",
  },
  DEA_VERIFY_LOCK_MINUTES: {
    schema: Type.Integer({ minimum: 0, maximum: 10_080, default: 15 }),
    doc: 'How long such a lock lasts (every verification fails meanwhile, consuming nothing); 0: until an operator unlocks the user.',
  },
  DEA_VERIFY_IDEMPOTENCY_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
    doc: 'How long the answer of a verification asked with an Idempotency-Key header (tempPass/verify, /validate/check) is kept in the store: a retry with the same key within it gets the same answer, from any instance, instead of a second verification.',
  },
} as const;

export interface CodeDefaults {
  codeLength: number;
  codeAlphabet: string;
  codeValidityMinutes: number;
  codeUses: number;
  maxUnusedCodes: number;
}

const MINUTE = 60_000;

/** The codes part of the configuration, from the typed setting values; problems named. */
export function codeConfigOf(
  values: SettingValues<typeof codeSettings>,
  problems: string[],
): { codeDefaults: CodeDefaults; verification: VerificationSettings; verifyIdempotencyMs: number } {
  const alphabet = values.DEA_CODE_ALPHABET;
  if (new Set(alphabet).size !== alphabet.length) {
    problems.push('DEA_CODE_ALPHABET: must not repeat a character');
  }
  return {
    codeDefaults: {
      codeLength: values.DEA_CODE_LENGTH,
      codeAlphabet: values.DEA_CODE_ALPHABET,
      codeValidityMinutes: values.DEA_CODE_VALIDITY_MINUTES,
      codeUses: values.DEA_CODE_USES,
      maxUnusedCodes: values.DEA_CODE_MAX_UNUSED,
    },
    verification: {
      maxFailures: values.DEA_VERIFY_MAX_FAILURES,
      lockMs: values.DEA_VERIFY_LOCK_MINUTES === 0 ? null : values.DEA_VERIFY_LOCK_MINUTES * MINUTE,
    },
    verifyIdempotencyMs: values.DEA_VERIFY_IDEMPOTENCY_SECONDS * 1000,
  };
}
