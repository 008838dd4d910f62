import type { Db } from './db.js';

/** At most this many pieces of work share one transaction; the rest wait for the next one. */
export const MAX_SHARED = 64;

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs `work` in transactions that the calls of one turn of the event loop share, and so share
 * their commit (on the embedded store a commit writes the log: the larger part of a short
 * transaction). Each piece runs in turn inside the transaction and sees what the pieces before it
 * wrote, so a rule checked inside `work` (a limit) holds as it does with a transaction each.
 * Should the shared transaction fail, nothing of it is kept and each piece runs again in a
 * transaction of its own: one piece's failure stays its own.
 */
export function sharingTransactions<T, R>(
  db: Db,
  work: (trx: Db, item: T) => Promise<R>,
): (item: T) => Promise<R> {
  let waiting: Waiting<T, R>[] = [];

  const alone = (entry: Waiting<T, R>): void => {
    db.transaction()
      .execute((trx) => work(trx, entry.item))
      .then(entry.resolve, entry.reject);
  };

  const runShared = (): void => {
    const batch = waiting.slice(0, MAX_SHARED);
    waiting = waiting.slice(MAX_SHARED);
    if (waiting.length > 0) setImmediate(runShared);
    if (batch.length === 1) {
      alone(batch[0]!);
      return;
    }
    db.transaction()
      .execute(async (trx) => {
        const results: R[] = [];
        for (const entry of batch) results.push(await work(trx, entry.item));
        return results;
      })
      .then(
        (results) => batch.forEach((entry, index) => entry.resolve(results[index] as R)),
        () => batch.forEach(alone),
      );
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (waiting.length === 1) setImmediate(runShared);
    });
}
