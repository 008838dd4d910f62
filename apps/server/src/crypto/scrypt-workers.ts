import type { ScryptOptions } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { ScryptDerive } from './password-hash.js';

/**
 * What each worker runs: scrypt, synchronously, on its own thread. Plain CommonJS given as text,
 * so it runs the same from the sources (tests, tsx) and from the build.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', ({ id, password, salt, keyLength, options }) => {
  try {
    const key = scryptSync(password, Buffer.from(salt), keyLength, options);
    parentPort.postMessage({ id, key: new Uint8Array(key) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

interface Job {
  id: number;
  password: string;
  salt: Buffer;
  keyLength: number;
  options: ScryptOptions;
  resolve: (key: Buffer) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

/**
 * Threads of their own for password hashes (scrypt): a hash never takes one of libuv's four
 * threads, which read the page's files and resolve names, so a flood of sign-ins leaves static
 * files, health checks and code calls their threads. `size` threads at most, made when first
 * needed, ended by `close`. The queue in front of it (HashQueue) bounds how many hashes wait.
 */
export class ScryptWorkers {
  private readonly slots: Slot[] = [];
  private readonly pending: Job[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly size: number) {}

  readonly derive: ScryptDerive = (password, salt, keyLength, options) =>
    new Promise<Buffer>((resolve, reject) => {
      if (this.closed) {
        reject(new Error('the password hashing threads are closed'));
        return;
      }
      this.pending.push({ id: (this.nextId += 1), password, salt, keyLength, options, resolve, reject });
      this.dispatch();
    });

  /** Ends every thread; hashes under way fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.pending.splice(0))
      job.reject(new Error('the password hashing threads are closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    for (;;) {
      const job = this.pending[0];
      if (job === undefined) return;
      const slot = this.slots.find((candidate) => candidate.job === undefined) ?? this.newSlot();
      if (slot === undefined) return;
      this.pending.shift();
      slot.job = job;
      slot.worker.postMessage({
        id: job.id,
        password: job.password,
        salt: new Uint8Array(job.salt),
        keyLength: job.keyLength,
        options: job.options,
      });
    }
  }

  private newSlot(): Slot | undefined {
    if (this.slots.length >= this.size) return undefined;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    // Idle threads never keep the process alive.
    worker.unref();
    const slot: Slot = { worker, job: undefined };
    worker.on('message', (message: { id: number; key?: Uint8Array; error?: string }) => {
      const job = slot.job;
      slot.job = undefined;
      if (job !== undefined && job.id === message.id) {
        if (message.key !== undefined) job.resolve(Buffer.from(message.key));
        else job.reject(new Error(message.error ?? 'scrypt failed'));
      }
      this.dispatch();
    });
    // A thread that dies (out of memory) fails its hash and is replaced when next needed.
    const lost = (error: Error) => {
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      slot.job?.reject(error);
      slot.job = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`a password hashing thread stopped (exit code ${code})`)));
    this.slots.push(slot);
    return slot;
  }
}
