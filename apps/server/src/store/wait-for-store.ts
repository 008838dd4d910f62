import type { Logger } from 'pino';
import { isStoreUnavailable, messageOf, StoreError } from './store-error.js';

/**
 * Failures of a store that is not there yet or not now (starting up, restarting, failing over,
 * unreachable for a moment, out of connections): worth waiting for. A wrong password, a missing
 * database or a schema from a newer version are not: those need the operator.
 */
export function isPassingStoreFailure(error: unknown): boolean {
  return isStoreUnavailable(error instanceof StoreError ? error.cause : error);
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
        { attempt, retryInMs: wait, cause: messageOf(error) ?? String(error) },
        `the store cannot be used yet; trying again in ${Math.ceil(wait / 1000)} s (for up to DEA_DB_START_WAIT_SECONDS in all)`,
      );
      await sleep(wait);
    }
  }
}
