import { deriveOnThreadPool, type ScryptDerive } from './password-hash.js';

/**
 * Bounds the password hashes in progress. Unbounded, a burst of sign-ins would take every thread
 * that hashes (and, on libuv's pool, those that read files and resolve names) and starve the page
 * and every other call; in the server the hashes run on threads of their own (ScryptWorkers). At most `concurrency` hashes run; at most `maxWaiting` more wait their turn; beyond that a
 * sign-in is refused at once ("too many requests") instead of queueing without end.
 */
export class HashQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
    /** Where the hashes run: threads of their own in the server (ScryptWorkers). */
    private readonly derive: ScryptDerive = deriveOnThreadPool,
  ) {}

  /** Hashes in progress and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs the task in its turn, with the scrypt it hashes with; undefined at once when the queue is full. */
  tryRun<T>(task: (derive: ScryptDerive) => Promise<T>): Promise<T> | undefined {
    if (this.running >= this.concurrency && this.waiting.length >= this.maxWaiting) return undefined;
    return this.run(task);
  }

  private async run<T>(task: (derive: ScryptDerive) => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task(this.derive);
    } finally {
      // The slot passes straight to the next waiter, so `running` never drops below what runs.
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}
