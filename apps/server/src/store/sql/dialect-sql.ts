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
}

const SQLITE: DialectSql = {
  contains: (text, part) => sql<boolean>`instr(${text}, ${part}) > 0`,
  holdsNonAscii: (text) => sql<boolean>`${text} glob '*[^ -~]*'`,
  inCodePoints: (text) => text,
  jsonObjectRows: (json) => sql`select key, value from json_each(${json})`,
};

const POSTGRES: DialectSql = {
  contains: (text, part) => sql<boolean>`strpos(${text}, ${part}) > 0`,
  holdsNonAscii: (text) => sql<boolean>`${text} ~ '[^ -~]'`,
  inCodePoints: (text) => sql`${text} collate "C"`,
  jsonObjectRows: (json) => sql`select key, value from json_each_text(${json}::json)`,
};

export const dialectSql = (dialect: Dialect): DialectSql => (dialect === 'postgres' ? POSTGRES : SQLITE);
