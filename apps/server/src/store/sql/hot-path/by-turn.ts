/** At most this many calls are gathered into one; the rest wait for the next. */
export const MAX_GATHERED = 64;

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers the calls made in one turn of the event loop and runs them together with `many` (one
 * transaction, one statement, one round trip to PostgreSQL), which answers each call's result in
 * its order. A call alone in its turn runs with `one`. Should `many` fail, each call runs again
 * with `one`, so that one call's failure stays its own: `many` must leave nothing behind when it
 * fails (a transaction rolled back, a single statement, a read).
 */
export function gatheredByTurn<T, R>(
  many: (items: T[]) => Promise<readonly R[]>,
  one: (item: T) => Promise<R>,
): (item: T) => Promise<R> {
  let waiting: Waiting<T, R>[] = [];

  const alone = (entry: Waiting<T, R>): void => {
    one(entry.item).then(entry.resolve, entry.reject);
  };

  const runGathered = (): void => {
    const batch = waiting.slice(0, MAX_GATHERED);
    waiting = waiting.slice(MAX_GATHERED);
    if (waiting.length > 0) setImmediate(runGathered);
    if (batch.length === 1) {
      alone(batch[0]!);
      return;
    }
    many(batch.map((entry) => entry.item)).then(
      (results) => batch.forEach((entry, index) => entry.resolve(results[index] as R)),
      () => batch.forEach(alone),
    );
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (waiting.length === 1) setImmediate(runGathered);
    });
}

/**
 * Reads by key made in one turn of the event loop, answered by one query for all their keys: on
 * PostgreSQL one round trip instead of one each. A read of a key not found answers undefined.
 */
export function readsGatheredByTurn<K, V>(
  readMany: (keys: K[]) => Promise<ReadonlyMap<K, V>>,
): (key: K) => Promise<V | undefined> {
  return gatheredByTurn(
    async (keys) => {
      const found = await readMany([...new Set(keys)]);
      return keys.map((key) => found.get(key));
    },
    async (key) => (await readMany([key])).get(key),
  );
}
