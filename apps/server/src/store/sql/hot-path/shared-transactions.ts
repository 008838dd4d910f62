import { gatheredByTurn } from './by-turn.js';
import type { Db } from '../db.js';
import { inOpenTransaction } from '../direct-statements.js';

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
  return gatheredByTurn(
    (items) =>
      db.transaction().execute((trx) =>
        inOpenTransaction(db, trx, async () => {
          const results: R[] = [];
          for (const item of items) results.push(await work(trx, item));
          return results;
        }),
      ),
    (item) => db.transaction().execute((trx) => inOpenTransaction(db, trx, () => work(trx, item))),
  );
}
