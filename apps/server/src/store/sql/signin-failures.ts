import type { SigninFailureRepository, SigninFailures } from '../store.js';
import type { Db } from './db.js';

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
  return {
    async find(subject) {
      const row = await db
        .selectFrom('signin_failures')
        .selectAll()
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row && toFailures(row);
    },
    async record(subject, at, rule) {
      // One statement counts and decides, so concurrent failures on any instance all count.
      const windowStart = at - rule.windowMs;
      const row = await db
        .insertInto('signin_failures')
        .values({
          subject,
          failures: 1,
          last_failure_at: at,
          locked_until: rule.lockAfter <= 1 ? at + rule.lockMs : null,
        })
        .onConflict((oc) =>
          oc.column('subject').doUpdateSet((eb) => {
            const stale = eb('signin_failures.last_failure_at', '<', windowStart);
            const count = eb
              .case()
              .when(stale)
              .then(1)
              .else(eb('signin_failures.failures', '+', 1))
              .end();
            return {
              failures: count,
              last_failure_at: at,
              locked_until: eb
                .case()
                .when(count, '>=', rule.lockAfter)
                .then(at + rule.lockMs)
                .else(eb.ref('signin_failures.locked_until'))
                .end(),
            };
          }),
        )
        .returning(['failures', 'last_failure_at', 'locked_until'])
        .executeTakeFirstOrThrow();
      return toFailures(row);
    },
    async clear(subject) {
      await db.deleteFrom('signin_failures').where('subject', '=', subject).execute();
    },
  };
}
