/**
 * The pages of a directory search, each next one asked for as soon as the one before is handed
 * on: the directory reads and sends a page while the sync writes the one before into the store,
 * instead of each side waiting for the other (a full pass of 50,000 users spends about as long in
 * each). One page ahead at most, so memory holds two pages. A failure of the page read ahead is
 * thrown where that page is awaited; when the consumer stops early, the search is ended once the page
 * read ahead is in (bounded by the directory's timeout), without holding the consumer's error back.
 */
export async function* readingAhead<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = pages[Symbol.asyncIterator]();
  let next = iterator.next();
  // Handled here as well, so that a page read ahead that fails while the consumer writes (and then
  // stops) is never an unhandled rejection; awaited below, it still throws.
  next.catch(() => undefined);
  let done = false;
  try {
    for (;;) {
      const result = await next;
      if (result.done === true) {
        done = true;
        return;
      }
      next = iterator.next();
      next.catch(() => undefined);
      yield result.value;
    }
  } finally {
    // Stopped early: the consumer's error goes on at once; the search ends when its page is in.
    if (!done) void next.then(() => iterator.return?.()).catch(() => undefined);
  }
}
