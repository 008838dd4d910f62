import { sql } from 'kysely';
import { compiledOnce } from './compiled-once.js';
import type { Db } from './db.js';

export interface VerifyFailures {
  /** Consecutive failed verifications: a success clears them, a new code does not. */
  failures: number;
  lastFailureAt: number;
  /** When the lock started; null while not locked. */
  lockedAt: number | null;
  /** When the lock ends; null with lockedAt set: until an operator unlocks. */
  lockedUntil: number | null;
}

export interface VerifyFailureRule {
  /** At this many consecutive failures the user is locked. */
  lockAfter: number;
  /** How long a lock lasts; null: until an operator unlocks. */
  lockMs: number | null;
}

export interface VerifyFailureRepository {
  find(userId: string): Promise<VerifyFailures | undefined>;
  /**
   * Counts one failure atomically (across instances) and starts the lock when the rule says so;
   * a lock that has run out starts a new count. Answers the new state; undefined when no user has
   * this id (nothing is counted, and the store did the same work).
   */
  record(userId: string, at: number, rule: VerifyFailureRule): Promise<VerifyFailures | undefined>;
  /** Forgets the user's failures and ends a lock; true when there was something to forget. */
  clear(userId: string): Promise<boolean>;
}

function toFailures(row: {
  failures: number;
  last_failure_at: number;
  locked_at: number | null;
  locked_until: number | null;
}): VerifyFailures {
  return {
    failures: Number(row.failures),
    lastFailureAt: Number(row.last_failure_at),
    lockedAt: row.locked_at === null ? null : Number(row.locked_at),
    lockedUntil: row.locked_until === null ? null : Number(row.locked_until),
  };
}

type RecordValues = {
  userId: string;
  at: number;
  lockAfter: number;
  /** When the lock ends should this failure start one; null: until an operator unlocks. */
  lockedUntil: number | null;
  /** The first failure's lock columns: `at` and `lockedUntil` when one failure locks, else null. */
  firstLockedAt: number | null;
  firstLockedUntil: number | null;
};

export type FailureRecorder = (
  target: Db,
  userId: string,
  at: number,
  rule: VerifyFailureRule,
) => Promise<VerifyFailures | undefined>;

/**
 * Counts one failure, on the store or inside a transaction of it (verification's), with a statement
 * compiled once. One statement counts and decides, so concurrent failures on any instance all count
 * and exactly one of them starts the lock. A lock that has run out starts a new series. The row
 * comes from the user's own row: for an id no user has (the decoy of an unknown name) the same
 * statement runs and counts nothing.
 */
export function failureRecorder(db: Db): FailureRecorder {
  const record = compiledOnce(db, (values: RecordValues) =>
    db
      .insertInto('verify_failures')
      .columns(['user_id', 'failures', 'last_failure_at', 'locked_at', 'locked_until'])
      .expression((eb) =>
        eb
          .selectFrom('users')
          .select([
            'users.id as user_id',
            sql<number>`cast(${1} as integer)`.as('failures'),
            sql<number>`cast(${values.at} as bigint)`.as('last_failure_at'),
            sql<number | null>`cast(${values.firstLockedAt} as bigint)`.as('locked_at'),
            sql<number | null>`cast(${values.firstLockedUntil} as bigint)`.as('locked_until'),
          ])
          .where('users.id', '=', values.userId),
      )
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet((eb) => {
          const lockedAt = eb.ref('verify_failures.locked_at');
          const until = eb.ref('verify_failures.locked_until');
          const lockEnded = eb.and([
            eb(lockedAt, 'is not', null),
            eb(until, 'is not', null),
            eb(until, '<=', values.at),
          ]);
          const count = eb
            .case()
            .when(lockEnded)
            .then(1)
            .else(eb('verify_failures.failures', '+', 1))
            .end();
          const stillLocked = eb.and([eb(lockedAt, 'is not', null), eb.not(lockEnded)]);
          const startsLock = eb(count, '>=', values.lockAfter);
          return {
            failures: count,
            last_failure_at: values.at,
            locked_at: eb
              .case()
              .when(stillLocked)
              .then(lockedAt)
              .when(startsLock)
              .then(values.at)
              .else(null)
              .end(),
            locked_until: eb
              .case()
              .when(stillLocked)
              .then(until)
              .when(startsLock)
              .then(sql<number | null>`cast(${values.lockedUntil} as bigint)`)
              .else(null)
              .end(),
          };
        }),
      )
      .returning(['failures', 'last_failure_at', 'locked_at', 'locked_until']),
  );
  return async (target, userId, at, rule) => {
    const lockedUntil = rule.lockMs === null ? null : at + rule.lockMs;
    const startsLocked = rule.lockAfter <= 1;
    const { rows } = await record.run(target, {
      userId,
      at,
      lockAfter: rule.lockAfter,
      lockedUntil,
      firstLockedAt: startsLocked ? at : null,
      firstLockedUntil: startsLocked ? lockedUntil : null,
    });
    const row = rows[0];
    return row && toFailures(row);
  };
}

/**
 * Forgets a user's failures, on the store or inside a transaction of it; true when there were some.
 * The row stays, set to zero (a row without failures means none): every verification counts itself
 * on it first, so a success that deleted it made the next attempt insert it again, where an update
 * in place writes no index entry (migration 0029 does the same on PostgreSQL).
 */
export function failureClearer(db: Db): (target: Db, userId: string) => Promise<boolean> {
  const clear = compiledOnce(db, (values: { userId: string }) =>
    db
      .updateTable('verify_failures')
      .set({ failures: 0, locked_at: null, locked_until: null })
      .where('user_id', '=', values.userId)
      .where('failures', '>', sql.lit(0)),
  );
  return async (target, userId) => Number((await clear.run(target, { userId })).numAffectedRows ?? 0n) > 0;
}

export function verifyFailureRepository(db: Db): VerifyFailureRepository {
  const record = failureRecorder(db);
  const clear = failureClearer(db);
  return {
    async find(userId) {
      const row = await db
        .selectFrom('verify_failures')
        .select(['failures', 'last_failure_at', 'locked_at', 'locked_until'])
        .where('user_id', '=', userId)
        .where('failures', '>', sql.lit(0))
        .executeTakeFirst();
      return row && toFailures(row);
    },
    record: (userId, at, rule) => record(db, userId, at, rule),
    clear: (userId) => clear(db, userId),
  };
}
