import { allOrNone, SubjectRefused, type Db } from './db.js';

/** One counter of a limit: at most `max` takes within a window that starts with the first take. */
export interface RateLimit {
  subject: string;
  max: number;
  windowMs: number;
}

export type RateTake = { allowed: true } | { allowed: false; subject: string; retryAfterMs: number };

export interface RateCounterRepository {
  /**
   * Takes one unit of every limit in one transaction, or none when any of them is used up:
   * a refused request never uses up another limit. Atomic across instances.
   */
  take(limits: readonly RateLimit[], at: number): Promise<RateTake>;
}

export function rateCounterRepository(db: Db): RateCounterRepository {
  return {
    take: (limits, at) => allOrNone(db, limits, (trx, limit) => takeOne(trx, limit, at)),
  };
}

async function takeOne(trx: Db, limit: RateLimit, at: number): Promise<void> {
  // One upsert counts and (re)starts the window; on PostgreSQL it holds the row lock until the
  // transaction ends, so concurrent takes of one subject on any instance queue here.
  const row = await trx
    .insertInto('rate_counters')
    .values({ subject: limit.subject, count: 1, window_ends_at: at + limit.windowMs })
    .onConflict((oc) =>
      oc.column('subject').doUpdateSet((eb) => {
        const ended = eb('rate_counters.window_ends_at', '<=', at);
        return {
          count: eb
            .case()
            .when(ended)
            .then(1)
            .else(eb('rate_counters.count', '+', 1))
            .end(),
          window_ends_at: eb
            .case()
            .when(ended)
            .then(at + limit.windowMs)
            .else(eb.ref('rate_counters.window_ends_at'))
            .end(),
        };
      }),
    )
    .returning(['count', 'window_ends_at'])
    .executeTakeFirstOrThrow();
  if (Number(row.count) > limit.max) {
    throw new SubjectRefused(limit.subject, Math.max(0, Number(row.window_ends_at) - at));
  }
}
