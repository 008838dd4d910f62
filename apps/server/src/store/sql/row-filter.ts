import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from './db.js';
import { dialectSql } from './dialect-sql.js';

/** A comparison of a filter (SCIM's operators, RFC 7644 section 3.4.2.2). */
export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * A filter of rows, evaluated by the store: comparisons of named columns joined by and, or, not.
 * `caseInsensitive` compares both sides in lower case; a column may be an expression the caller
 * names (`coalesce(updated_at, created_at)`), never text from a client.
 */
export type RowFilter<Column extends string = string> =
  | { kind: 'and' | 'or'; filters: RowFilter<Column>[] }
  | { kind: 'not'; filter: RowFilter<Column> }
  | { kind: 'present'; column: Column }
  | {
      kind: 'compare';
      column: Column;
      op: CompareOp;
      value: string | number;
      caseInsensitive?: boolean;
    };

/** The SQL of a column name or of one of the expressions a repository allows. */
export type ColumnSql<Column extends string> = (column: Column) => RawBuilder<unknown>;

/** The filter as a where-clause of both stores; a comparison with no value (NULL) is false, also under not. */
export function whereOf<Column extends string>(
  filter: RowFilter<Column>,
  columnSql: ColumnSql<Column>,
  dialect: Dialect,
): RawBuilder<boolean> {
  switch (filter.kind) {
    case 'and':
    case 'or': {
      if (filter.filters.length === 0)
        return filter.kind === 'and' ? sql<boolean>`1 = 1` : sql<boolean>`1 = 0`;
      const parts = filter.filters.map((each) => whereOf(each, columnSql, dialect));
      return sql<boolean>`(${sql.join(parts, filter.kind === 'and' ? sql` and ` : sql` or `)})`;
    }
    case 'not':
      return sql<boolean>`(not ${whereOf(filter.filter, columnSql, dialect)})`;
    case 'present': {
      const column = columnSql(filter.column);
      return sql<boolean>`(${column} is not null and ${column} <> '')`;
    }
    case 'compare':
      return sql<boolean>`((${compared(filter, columnSql, dialect)}) is true)`;
  }
}

function compared<Column extends string>(
  filter: Extract<RowFilter<Column>, { kind: 'compare' }>,
  columnSql: ColumnSql<Column>,
  dialect: Dialect,
): RawBuilder<unknown> {
  const text = typeof filter.value === 'string';
  const lower = filter.caseInsensitive === true && text;
  const column = lower ? sql`lower(${columnSql(filter.column)})` : columnSql(filter.column);
  const value = lower ? (filter.value as string).toLowerCase() : filter.value;
  switch (filter.op) {
    case 'eq':
      return sql`${column} = ${value}`;
    case 'ne':
      return sql`${column} <> ${value}`;
    case 'gt':
      return sql`${column} > ${value}`;
    case 'ge':
      return sql`${column} >= ${value}`;
    case 'lt':
      return sql`${column} < ${value}`;
    case 'le':
      return sql`${column} <= ${value}`;
    // Substrings without LIKE: no pattern characters to escape, and exact case unless asked.
    case 'co':
      return dialectSql(dialect).contains(column, String(value));
    case 'sw':
      return sql`substr(${column}, 1, ${String(value).length}) = ${String(value)}`;
    case 'ew':
      return sql`(length(${column}) >= ${String(value).length} and substr(${column}, length(${column}) - ${String(value).length - 1}) = ${String(value)})`;
  }
}

/**
 * An order of rows, evaluated by the store (SCIM's sortBy and sortOrder, RFC 7644 section
 * 3.4.2.3): by a named column, text in Unicode code point order (no locale; in lower case when
 * `caseInsensitive`), a row without a value after every row with one ascending, before them
 * descending, on both stores alike.
 */
export interface RowOrder<Column extends string = string> {
  column: Column;
  descending: boolean;
  text?: boolean;
  caseInsensitive?: boolean;
}

/** The order-by terms of an order (the caller adds a last one that tells every row apart). */
export function orderTermsOf<Column extends string>(
  order: RowOrder<Column>,
  columnSql: ColumnSql<Column>,
  dialect: Dialect,
): RawBuilder<unknown>[] {
  const column = columnSql(order.column);
  const direction = order.descending ? sql`desc` : sql`asc`;
  const value =
    order.text !== true ? column : order.caseInsensitive === true ? sql`lower(${column})` : sql`${column}`;
  const inCodePoints = order.text === true ? dialectSql(dialect).inCodePoints(value) : value;
  return [sql`(${column} is null) ${direction}`, sql`${inCodePoints} ${direction}`];
}
