import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/**
 * Marks the SQL of a hot statement that PostgreSQL should parse and plan once per connection (a
 * named prepared statement) rather than at every call. Elsewhere it is a comment. Only for
 * statements run outside a transaction (one that proves unusable is run again as a plain one),
 * that name their columns (a `select *` planned before a migration added a column fails).
 */
export const PREPARED_MARK = '/* prepared */ ';

/** The name of a marked statement: the same text has the same name on every instance. */
export function preparedName(text: string): string {
  return `dea_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/**
 * What PostgreSQL answers when a named statement cannot be used: gone from the connection
 * (26000), already there under the name (42P05: a pooler gave this connection's statements to
 * another client), or planned for columns that a migration has since changed (0A000). A pooler in
 * transaction mode that does not track prepared statements (PgBouncer before 1.21) gives the first
 * two.
 */
const UNUSABLE_STATEMENT = new Set(['26000', '42P05', '0A000']);

export interface PreparedStatements {
  /** Whether marked statements go as named prepared statements (DEA_DB_PREPARED_STATEMENTS). */
  enabled: boolean;
  /** Told once when a statement proves unusable and they are turned off for this process. */
  onTurnedOff?: (cause: string) => void;
}

/**
 * The pool as Kysely sees it: the marked statements go by name while `options.enabled`. When one
 * proves unusable they are turned off for the pool, `onTurnedOff` is told, and the call is made
 * again as a plain statement: no request fails for it.
 */
export function poolPreparing(pool: pg.Pool, options: PreparedStatements): PostgresPool {
  let enabled = options.enabled;
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (name === undefined) {
      name = preparedName(text);
      names.set(text, name);
    }
    return name;
  };
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const plain = (text: string, values: ReadonlyArray<unknown>) => client.query(text, [...values]);
    const query = async (text: string, values: ReadonlyArray<unknown>) => {
      if (!enabled || !text.startsWith(PREPARED_MARK)) return plain(text, values);
      try {
        return await client.query({ name: nameOf(text), text, values: [...values] });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'string' || !UNUSABLE_STATEMENT.has(code)) throw error;
        if (enabled) {
          enabled = false;
          options.onTurnedOff?.(`${code}: ${(error as Error).message}`);
        }
        return plain(text, values);
      }
    };
    return {
      // Kysely reads no cursors from this store: a plain call is all it makes.
      query: query as unknown as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let found = wrapped.get(client);
      if (found === undefined) {
        found = wrap(client);
        wrapped.set(client, found);
      }
      return found;
    },
    end: () => pool.end(),
  };
}
