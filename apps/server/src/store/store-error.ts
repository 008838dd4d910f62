/** A store that cannot be used as it is; the message names the cause and what to do. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** The error's code (a PostgreSQL SQLSTATE, a Node or SQLite code), or ''. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : '';
}
