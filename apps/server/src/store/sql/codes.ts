import { sql } from 'kysely';
import type { NewAuditEntry } from '../store.js';
import type { Channel } from './channels.js';
import type { Db } from './db.js';
import type { HotPath } from './hot-path/hot-path.js';
import type { VerifyFailureRule } from './verify-failures.js';

export interface NewCode {
  id: string;
  userId: string;
  codeHash: string;
  createdAt: number;
  expiresAt: number;
  uses: number;
  channelType: string | null;
}

export interface ActiveCode {
  id: string;
  codeHash: string;
  /** The send type it went to; null when it was shown on screen. */
  channelType: string | null;
  createdAt: number;
  expiresAt: number;
  usesLeft: number;
}

export type IssueOutcome =
  | {
      issued: true;
      /** The user's channels, read with the issue (the notice to them needs no read of its own). */
      channels: Channel[];
    }
  | { issued: false; reason: 'store-full' | 'no-user' };

/** Why a verification failed (for the audit log only: callers answer just valid or not). */
export type VerifyRefusal = 'unknown-user' | 'disabled' | 'codes-disabled' | 'no-usable-code' | 'locked';

/** What a user's stored policy means for a verification, as the domain resolves it. */
export interface VerifyPolicy {
  /** The policy lets the user have codes. */
  enabled: boolean;
  /** How the policy's alphabet normalizes an input (crypto/code-generator.ts, CODE_FORMS). */
  form: number;
  /** Codes compared at least, whatever the user holds (decoys for the ones missing). */
  compareAtLeast: number;
}

export interface VerifyCall {
  /** The user the code is presented for, or an id no user has (an unknown name): the same work. */
  userId: string;
  /** A refusal the caller knows of already (unknown user, disabled user): nothing is used. */
  refusal: 'unknown-user' | 'disabled' | null;
  /** The input's keyed hashes, form after form (CODE_FORMS), each with every accepted key. */
  candidates: readonly string[];
  keyCount: number;
  /** The form of the default alphabet, for a user whose policy names none that is valid. */
  defaultForm: number;
  /** The policy category whose options decide (Self Service). */
  policyCategory: string;
  /** The stored policy resolved (undefined: the user has none). */
  policyOf: (stored: Record<string, unknown> | undefined) => VerifyPolicy;
  now: number;
  rule: VerifyFailureRule;
  /** Who the audit entries name. */
  audit: { userId: string | null; actor: string; clientAddress: string | null };
}

export interface VerifyAnswer {
  outcome: { used: true; codeId: string } | { used: false; reason: VerifyRefusal };
  /** The audit entries it wrote (for metrics and the audit export's listeners). */
  entries: (NewAuditEntry & { id: string })[];
}

export interface CodeRepository {
  /**
   * Inserts the code only when the user holds fewer than `maxUnused` usable codes, decided
   * atomically (the user's row is locked for the decision), and writes the audit entry in the
   * same transaction.
   */
  issue(code: NewCode, maxUnused: number, audit: NewAuditEntry): Promise<IssueOutcome>;
  /** Usable codes: not expired, not invalidated, with uses left. */
  listActive(userId: string, now: number): Promise<ActiveCode[]>;
  countActive(userId: string, now: number): Promise<number>;
  /** Takes one use of the code when it still has one; true when this call got it. */
  consume(codeId: string, now: number): Promise<boolean>;
  /**
   * Gives back one use taken by `consume` whose answer never reached its client (it left); true
   * when the code had been used, and is not taken out of use.
   */
  giveBackUse(codeId: string): Promise<boolean>;
  /** Takes the code out of use; true when this call did (false: already taken out). */
  invalidate(codeId: string, now: number): Promise<boolean>;
  /**
   * The one verification of a code, in one round trip: counts the attempt (before any code is looked
   * at; a locked user goes no further), reads the user's policy, compares the input with each of
   * the user's usable codes (in constant time on the embedded store), uses the match, clears the
   * failures on a success and writes the audit entries (code.used, code.verify_failed,
   * code.verify_locked, code.verify_lockout), all in one statement on PostgreSQL (migration 0019)
   * and one transaction on the embedded store. There, transactions run one at a time: the count is
   * read first (a locked user goes no further) and written only for a failure.
   */
  verify(call: VerifyCall): Promise<VerifyAnswer>;
}
/** A code to issue within its user's limit of usable codes, and its audit entry. */
export interface IssueCall {
  code: NewCode;
  maxUnused: number;
  audit: NewAuditEntry;
}

/**
 * `uses_left > 0`, written as a literal. SQLite decides whether the partial index of usable codes
 * (`codes_active_by_user`, whose condition is `uses_left > 0`) applies by comparing the two conditions; with
 * a bound value there, every run of the statement binds it again and makes SQLite prepare the
 * statement anew (about 8 µs each time).
 */
export const STILL_USABLE = sql.lit(0);

/** A user's codes; their issue and verification are the hot path's (hot-path/hot-path.ts). */
export function codeRepository(db: Db, hot: Pick<HotPath, 'issueCode' | 'verifyCode'>): CodeRepository {
  return {
    verify: (call) => hot.verifyCode(call),
    issue: (code, maxUnused, audit) => hot.issueCode({ code, maxUnused, audit }),
    async listActive(userId, now) {
      return db
        .selectFrom('codes')
        .select([
          'id',
          'code_hash as codeHash',
          'channel_type as channelType',
          'created_at as createdAt',
          'expires_at as expiresAt',
          'uses_left as usesLeft',
        ])
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .where('uses_left', '>', STILL_USABLE)
        .where('invalidated_at', 'is', null)
        .orderBy('created_at')
        .execute()
        .then((rows) =>
          rows.map((row) => ({
            ...row,
            createdAt: Number(row.createdAt),
            expiresAt: Number(row.expiresAt),
            usesLeft: Number(row.usesLeft),
          })),
        );
    },
    async countActive(userId, now) {
      const row = await db
        .selectFrom('codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .where('uses_left', '>', STILL_USABLE)
        .where('invalidated_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async consume(codeId, now) {
      // One statement decides: of two concurrent calls only one sees uses_left > 0.
      const result = await db
        .updateTable('codes')
        .set((eb) => ({ uses_left: eb('uses_left', '-', 1), last_used_at: now }))
        .where('id', '=', codeId)
        .where('uses_left', '>', STILL_USABLE)
        .where('expires_at', '>', now)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async giveBackUse(codeId) {
      const result = await db
        .updateTable('codes')
        .set((eb) => ({ uses_left: eb('uses_left', '+', 1) }))
        .where('id', '=', codeId)
        .where('last_used_at', 'is not', null)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async invalidate(codeId, now) {
      const result = await db
        .updateTable('codes')
        .set({ invalidated_at: now })
        .where('id', '=', codeId)
        .where('invalidated_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
