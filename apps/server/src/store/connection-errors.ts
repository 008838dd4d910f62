import { codeOf, messageOf, StoreError } from './store-error.js';

/** Where the store is, for messages: the PostgreSQL host, port, user and database (never the password). */
function describeUrl(databaseUrl: string): { where: string; user: string; database: string } {
  try {
    const url = new URL(databaseUrl);
    const port = url.port || '5432';
    return {
      where: `${url.hostname || 'localhost'}:${port}`,
      user: decodeURIComponent(url.username) || '(none)',
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default)',
    };
  } catch {
    return { where: '(unreadable URL)', user: '?', database: '?' };
  }
}

/**
 * A failure to reach or use the store, told as the operator needs it: what happened and which
 * setting to check. The cause (error code) stays attached for the log.
 */
export function storeConnectionError(
  error: unknown,
  options: { databaseUrl?: string | undefined; dataDir: string },
): StoreError {
  if (error instanceof StoreError) return error;
  const code = codeOf(error);
  const detail = messageOf(error) ?? 'unknown error';
  if (options.databaseUrl === undefined || options.databaseUrl === '') {
    return new StoreError(
      `cannot open the embedded store in ${options.dataDir} (${code || detail}): check DEA_DATA_DIR, that the folder is writable by this user, and that no disk is full`,
      { cause: error },
    );
  }
  const { where, user, database } = describeUrl(options.databaseUrl);
  const refusedParameter = /unsupported startup parameter: (\w+)/.exec(detail)?.[1];
  if (code === '08P01' && refusedParameter !== undefined) {
    return new StoreError(
      `the connection pooler at ${where} (PgBouncer) refuses the connection parameter ${refusedParameter}: set DEA_DB_SERVER_TIMEOUTS=off and set the timeouts on the role instead (see "Running on PostgreSQL", docs/operator/postgresql.md)`,
      { cause: error },
    );
  }
  const told: Record<string, string> = {
    '28P01': `PostgreSQL at ${where} refused the password of user "${user}": check the password in DATABASE_URL`,
    '28000': `PostgreSQL at ${where} refused user "${user}" (${detail}): check the user in DATABASE_URL and the server's pg_hba.conf`,
    '3D000': `database "${database}" does not exist on PostgreSQL at ${where}: create it (createdb ${database}) or correct DATABASE_URL`,
    '42501': `user "${user}" lacks a right the store needs on database "${database}" (${detail}): grant it CREATE on the schema (see "Running on PostgreSQL", docs/operator/postgresql.md)`,
    ECONNREFUSED: `nothing answers at ${where} (connection refused): check the host and port in DATABASE_URL and that PostgreSQL runs`,
    ENOTFOUND: `the host of DATABASE_URL (${where}) is not known to DNS: check DATABASE_URL`,
    EAI_AGAIN: `the host of DATABASE_URL (${where}) could not be looked up now (DNS): check DATABASE_URL and the name service`,
    ETIMEDOUT: `PostgreSQL at ${where} did not answer in time: check DATABASE_URL, the network and firewalls`,
    EHOSTUNREACH: `PostgreSQL at ${where} cannot be reached (no route to host): check DATABASE_URL and the network`,
    '57P03': `PostgreSQL at ${where} is starting up or shutting down: try again in a moment`,
    '25006': `PostgreSQL at ${where} takes no writes (a standby, as after a failover, or default_transaction_read_only): point DATABASE_URL at the primary`,
  };
  return new StoreError(
    told[code] ??
      `cannot use PostgreSQL at ${where} as user "${user}", database "${database}" (${code ? `${code}: ` : ''}${detail}): check DATABASE_URL`,
    { cause: error },
  );
}
