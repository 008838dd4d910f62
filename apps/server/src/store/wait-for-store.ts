import type { Logger } from 'pino';
import { codeOf, StoreError } from './store-error.js';

/**
 * Failures of a store that is not there yet or not now (starting up, restarting, failing over,
 * unreachable for a moment, out of connections): worth waiting for. A wrong password, a missing
 * database, an unknown host or a schema from a newer version are not: those need the operator.
 */
const PASSING_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08006',
]);

export function isPassingStoreFailure(error: unknown): boolean {
  const cause = error instanceof StoreError ? error.cause : error;
  if (PASSING_CODES.has(codeOf(cause))) return true;
  // node-postgres ends a connection the server dropped with this message and no code.
  return cause instanceof Error && /Connection terminated|timeout expired/i.test(cause.message);
}

const FIRST_DELAY_MS = 1000;
const LONGEST_DELAY_MS = 30_000;

/**
 * Opens the store, and while it fails in a way that passes, tries again (1 s, doubling to 30 s)
 * until `waitMs` have gone by, logging each failure with its cause and the setting to check; then
 * the last failure stands. `waitMs` 0: no second try.
 */
export async function openWhenReachable<T>(
  open: () => Promise<T>,
  waitMs: number,
  log: Pick<Logger, 'warn'>,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (
    let attempt = 1, delay = FIRST_DELAY_MS;
    ;
    attempt += 1, delay = Math.min(LONGEST_DELAY_MS, delay * 2)
  ) {
    try {
      return await open();
    } catch (error) {
      const left = deadline - Date.now();
      if (!isPassingStoreFailure(error) || left <= 0) throw error;
      const wait = Math.min(delay, left);
      log.warn(
        { attempt, retryInMs: wait, cause: error instanceof Error ? error.message : String(error) },
        `the store cannot be used yet; trying again in ${Math.ceil(wait / 1000)} s (for up to DEA_DB_START_WAIT_SECONDS in all)`,
      );
      await sleep(wait);
    }
  }
}
