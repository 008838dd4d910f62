import { codeOf } from '../store/store-error.js';
import type { Store } from '../store/store.js';

/**
 * PostgreSQL's answers to a transaction that lost a race to another writer: a unique value it
 * took meanwhile (23505), and any statement after such a failure in the same transaction (25P02:
 * a rule that reads again to name the conflict cannot, once its transaction failed).
 */
const LOST_A_RACE = new Set(['23505', '25P02']);

/**
 * `work` in one transaction of the store; on PostgreSQL, one that lost a race to another writer
 * is run once more from the start (nothing of the first try was kept), when it sees what the
 * other wrote and answers it (a name taken is 409, a version moved on 412). A deadlock or a
 * serialization failure stays the store's 503 with Retry-After.
 */
export async function inOneTransaction<T>(store: Store, work: (store: Store) => Promise<T>): Promise<T> {
  try {
    return await store.transaction(work);
  } catch (error) {
    if (store.kind !== 'postgres' || !LOST_A_RACE.has(codeOf(error))) throw error;
    return store.transaction(work);
  }
}
