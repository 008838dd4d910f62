/** A store that cannot be used as it is; the message names the cause and what to do. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/**
 * The error's message, or undefined: read from the value, not by `instanceof Error`, which an
 * Error of another realm fails and better-sqlite3's SqliteError (an Error by prototype only) too.
 */
export function messageOf(error: unknown): string | undefined {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** The error's code (a PostgreSQL SQLSTATE, a Node or SQLite code), or ''. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : '';
}

/**
 * PostgreSQL's codes for "the server cannot take queries now" (class 08, 57P0x, too many
 * connections, a full disk 53100), a statement or lock wait cut short by its timeout (57014, 55P03), a server that
 * takes no writes (25006: a standby a failover left the address on, or
 * default_transaction_read_only), a transaction given up to a deadlock or a serialization conflict
 * (40P01, 40001: trying again succeeds), and SQLite's for a busy or unreadable file.
 */
const UNAVAILABLE_CODES =
  /^(08\d{3}|57P0[1-4]|57014|55P03|53100|53300|25006|40001|40P01|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY)\w*)$/;
/** node-postgres's failures without a code: a dropped connection, no connection in time, no answer in time. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/;

/** The store is down, unreachable or too slow now: no fault of the request, over once the store is back. */
export function isStoreUnavailable(error: unknown): boolean {
  return UNAVAILABLE_CODES.test(codeOf(error)) || UNAVAILABLE_MESSAGES.test(messageOf(error) ?? '');
}

/**
 * The log message of an unavailable store: the cause when an operator has something to do about
 * it (a full disk, and where), naming the setting to check; else "store unavailable".
 */
export function unavailableReason(error: unknown, dataDir: string): string {
  const code = codeOf(error);
  if (/^SQLITE_FULL/.test(code) || code === 'ENOSPC') {
    return `store unavailable: the disk is full under the embedded store (DEA_DATA_DIR=${dataDir}); free space there or move DEA_DATA_DIR to a larger disk`;
  }
  if (code === '53100') {
    return 'store unavailable: the disk is full under PostgreSQL (SQLSTATE 53100); free space on the database server of DATABASE_URL';
  }
  return 'store unavailable';
}
