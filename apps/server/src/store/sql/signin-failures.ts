import { allOrNone, SubjectRefused, type Db } from './db.js';

export interface SigninFailures {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number | null;
}

/**
 * One limit on sign-in attempts for one subject (a user name, a client address, or both). An
 * attempt is counted before its password is checked, so however many arrive at once, at most
 * `max` are checked before the subject locks.
 */
export interface SigninAttemptLimit {
  subject: string;
  /** Counted attempts within the window; the attempt that reaches it locks the subject. */
  max: number;
  /** Attempts older than this are forgotten: counting starts again. */
  windowMs: number;
  /** How long the subject stays locked once `attempts` (at least `max`) are counted. */
  lockMsAt(attempts: number): number;
  /**
   * When set, this subject's lock refuses only attempts for which that other subject has failures
   * counted within the window; any other attempt is admitted and counted, and the lock stays as it
   * is. The per-address rule: it slows down the user names that failed from the address and never
   * refuses one that has not.
   */
  refusesOnlyAfterFailuresOf?: string;
}

export type SigninReservation = { allowed: true } | { allowed: false; subject: string; retryAfterMs: number };

export interface SigninFailureRepository {
  find(subject: string): Promise<SigninFailures | undefined>;
  /**
   * Counts one attempt against every limit in one transaction, or none when any subject is
   * locked: atomic across instances, so a refused attempt never reaches the password check.
   */
  reserve(limits: readonly SigninAttemptLimit[], at: number): Promise<SigninReservation>;
  /** Takes back one counted attempt (its password was right, or never checked) and the lock it caused. */
  release(subject: string, max: number): Promise<void>;
  clear(subject: string): Promise<void>;
}

function toFailures(row: {
  failures: number;
  last_failure_at: number;
  locked_until: number | null;
}): SigninFailures {
  return {
    failures: Number(row.failures),
    lastFailureAt: Number(row.last_failure_at),
    lockedUntil: row.locked_until === null ? null : Number(row.locked_until),
  };
}

export function signinFailureRepository(db: Db): SigninFailureRepository {
  /** Counts one attempt of the subject inside the transaction; throws SubjectRefused when it may not try. */
  async function reserveOne(trx: Db, limit: SigninAttemptLimit, at: number): Promise<void> {
    // The row made or taken in one statement, locked until this transaction ends, so that
    // PostgreSQL's row lock queues every concurrent attempt of this subject, on every instance,
    // behind this transaction. (An insert doing nothing on conflict, then a read, lost the row
    // when a success removed it in between (clear): the read found none and the sign-in failed
    // with error 1. ON CONFLICT DO UPDATE inserts again when the row it waited for is gone.)
    const current = toFailures(
      await trx
        .insertInto('signin_failures')
        .values({ subject: limit.subject, failures: 0, last_failure_at: at, locked_until: null })
        .onConflict((oc) =>
          oc.column('subject').doUpdateSet((eb) => ({ subject: eb.ref('excluded.subject') })),
        )
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
    const stale = current.lastFailureAt < at - limit.windowMs;
    const attempts = (stale ? 0 : current.failures) + 1;
    if (current.lockedUntil !== null && current.lockedUntil > at) {
      const exempt =
        limit.refusesOnlyAfterFailuresOf !== undefined &&
        !(await failedWithin(trx, limit.refusesOnlyAfterFailuresOf, limit.windowMs, at));
      if (!exempt) throw new SubjectRefused(limit.subject, current.lockedUntil - at);
      // Admitted past the lock: counted, and the lock stays as it is.
      await trx
        .updateTable('signin_failures')
        .set({ failures: attempts, last_failure_at: at })
        .where('subject', '=', limit.subject)
        .execute();
      return;
    }
    await trx
      .updateTable('signin_failures')
      .set({
        failures: attempts,
        last_failure_at: at,
        locked_until: attempts >= limit.max ? at + limit.lockMsAt(attempts) : null,
      })
      .where('subject', '=', limit.subject)
      .execute();
  }

  /** Whether the subject has failures counted within the window before `at`. */
  async function failedWithin(trx: Db, subject: string, windowMs: number, at: number): Promise<boolean> {
    const row = await trx
      .selectFrom('signin_failures')
      .select(['failures', 'last_failure_at'])
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row !== undefined && Number(row.failures) > 0 && Number(row.last_failure_at) >= at - windowMs;
  }

  return {
    async find(subject) {
      const row = await db
        .selectFrom('signin_failures')
        .selectAll()
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row && toFailures(row);
    },
    reserve: (limits, at) => allOrNone(db, limits, (trx, limit) => reserveOne(trx, limit, at)),
    async release(subject, max) {
      // One statement: concurrent releases and reservations of the subject never lose a count.
      await db
        .updateTable('signin_failures')
        .set((eb) => ({
          failures: eb
            .case()
            .when('failures', '>', 0)
            .then(eb('failures', '-', 1))
            .else(0)
            .end(),
          locked_until: eb.case().when('failures', '<=', max).then(null).else(eb.ref('locked_until')).end(),
        }))
        .where('subject', '=', subject)
        .execute();
    },
    async clear(subject) {
      await db.deleteFrom('signin_failures').where('subject', '=', subject).execute();
    },
  };
}
