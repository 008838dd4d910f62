/**
 * Bounds the password hashes in progress. scrypt runs on libuv's small thread pool, which also
 * reads files and resolves names: unbounded, a burst of sign-ins starves the page and every other
 * call. At most `concurrency` hashes run; at most `maxWaiting` more wait their turn; beyond that a
 * sign-in is refused at once ("too many requests") instead of queueing without end.
 */
export class HashQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  /** Hashes in progress and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs the task in its turn; undefined at once when the queue is full. */
  tryRun<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.running >= this.concurrency && this.waiting.length >= this.maxWaiting) return undefined;
    return this.run(task);
  }

  private async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never drops below what runs.
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}
