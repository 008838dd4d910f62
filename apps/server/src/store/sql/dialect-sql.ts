import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from './db.js';

/**
 * What is written differently in SQLite's SQL and PostgreSQL's, in one place: a repository asks
 * for the piece it needs and never branches on the database's kind for the syntax.
 */
export interface DialectSql {
  /** Whether `part` is in `text`, exactly (no LIKE pattern, so nothing to escape). */
  contains(text: RawBuilder<unknown>, part: string): RawBuilder<boolean>;
  /** Whether `text` holds a character outside printable ASCII. */
  holdsNonAscii(text: RawBuilder<unknown>): RawBuilder<boolean>;
  /** `text` ordered by code point, as SQLite orders text (PostgreSQL's default follows a locale). */
  inCodePoints(text: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The rows (key, value) of a JSON object of strings, given as one parameter. */
  jsonObjectRows(json: string): RawBuilder<unknown>;
  /**
   * A read of rows to change within the transaction, which keeps them until it ends: on PostgreSQL
   * FOR NO KEY UPDATE (changes of the same rows wait for each other; rows that merely refer to them
   * through a foreign key, which takes KEY SHARE, do not wait); the embedded store runs one writing
   * transaction at a time, and needs no lock.
   */
  lockedForChange<Q extends { forNoKeyUpdate(): Q }>(query: Q): Q;
  /**
   * The conditions under which each store's indexes find the codes a purge removes (expired, used
   * or revoked), one statement each (store/sql/retention.ts): SQLite's partial index codes_spent
   * must be named by its own condition; on PostgreSQL no index names uses_left (migration 0034: a
   * use is a HOT update), so the revoked ones go by codes_invalidated and the used ones among the
   * live codes by codes_expiry.
   */
  spentCodes(now: number): RawBuilder<boolean>[];
}

const SQLITE: DialectSql = {
  contains: (text, part) => sql<boolean>`instr(${text}, ${part}) > 0`,
  holdsNonAscii: (text) => sql<boolean>`${text} glob '*[^ -~]*'`,
  inCodePoints: (text) => text,
  jsonObjectRows: (json) => sql`select key, value from json_each(${json})`,
  lockedForChange: (query) => query,
  spentCodes: (now) => [sql`expires_at <= ${now}`, sql`(uses_left <= 0 or invalidated_at is not null)`],
};

const POSTGRES: DialectSql = {
  contains: (text, part) => sql<boolean>`strpos(${text}, ${part}) > 0`,
  holdsNonAscii: (text) => sql<boolean>`${text} ~ '[^ -~]'`,
  inCodePoints: (text) => sql`${text} collate "C"`,
  jsonObjectRows: (json) => sql`select key, value from json_each_text(${json}::json)`,
  lockedForChange: (query) => query.forNoKeyUpdate(),
  spentCodes: (now) => [
    sql`expires_at <= ${now}`,
    sql`invalidated_at is not null`,
    sql`(expires_at > ${now} and uses_left <= 0)`,
  ],
};

export const dialectSql = (dialect: Dialect): DialectSql => (dialect === 'postgres' ? POSTGRES : SQLITE);
