import type { Store } from '../store/store.js';
import { tooManyRequests } from './errors.js';

/**
 * A bound on the work of one kind in progress at once, so that a burst of it cannot take what the
 * other kinds need (the store's connections, threads, the event loop). Work beyond the bound
 * either waits its turn (`run`) or is refused at once (`tryEnter`).
 */
export class Bulkhead {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /** Work in progress and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** A place now, with the function that gives it back (once); undefined when every place is taken. */
  tryEnter(): (() => void) | undefined {
    if (this.running >= this.limit) return undefined;
    this.running += 1;
    return this.leaver();
  }

  /**
   * Runs the task once it has a place; the place passes to the next in line when it ends. A task
   * that waits longer than `maxWaitMs` is not run: the error of `tooLong()` instead.
   */
  async run<T>(task: () => Promise<T>, maxWaitMs?: number, tooLong?: () => Error): Promise<T> {
    if (this.running >= this.limit) await this.turn(maxWaitMs, tooLong);
    else this.running += 1;
    const leave = this.leaver();
    try {
      return await task();
    } finally {
      leave();
    }
  }

  private turn(maxWaitMs: number | undefined, tooLong: (() => Error) | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer =
        maxWaitMs === undefined
          ? undefined
          : setTimeout(() => {
              const at = this.waiting.indexOf(given);
              if (at >= 0) this.waiting.splice(at, 1);
              reject(tooLong?.() ?? new Error(`waited longer than ${maxWaitMs} ms for a place`));
            }, maxWaitMs);
      const given = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.push(given);
    });
  }

  private leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      // The place passes straight to the next waiter, so `running` never drops below what runs.
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    };
  }
}

/** How long a sign-in refused by the bound on sign-ins in flight is asked to wait. */
const SIGN_IN_BUSY_RETRY_SECONDS = 1;

/**
 * The bounds on sign-in work of one instance (finding: a burst of sign-ins starved verification,
 * the page and static files): at most `maxInFlight` sign-ins at once, beyond which a sign-in is
 * answered error 140 with Retry-After before it does any work (DEA_SIGNIN_MAX_IN_FLIGHT), and its
 * store work through `store`, which holds at most `storeConnections` of the store's connections at
 * once (DEA_SIGNIN_DB_CONNECTIONS), so verification always finds one free.
 */
export class SignInBulkheads {
  private readonly inFlight: Bulkhead;
  /** The places of sign-in's store calls (one call: one connection at most). */
  readonly storeLane: Bulkhead;
  /** The store as sign-in work sees it: every call waits for one of the lane's places. */
  readonly store: Store;

  constructor(
    store: Store,
    limits: {
      maxInFlight: number;
      storeConnections: number;
      /** Longest a store call waits for a place (DEA_DB_CONNECT_TIMEOUT_MS, as for a connection of the pool). */
      storeWaitMs: number;
    },
    /** Told of every sign-in refused because the bound was reached (the metrics). */
    private readonly onRefused: () => void = () => undefined,
  ) {
    this.inFlight = new Bulkhead(limits.maxInFlight);
    this.storeLane = new Bulkhead(limits.storeConnections);
    // Waiting longer is the store being unavailable for sign-in (503 with Retry-After), as a
    // connection of the pool not given in time is; the message names the settings.
    const tooLong = () =>
      Object.assign(
        new Error(
          `sign-in's store call waited longer than DEA_DB_CONNECT_TIMEOUT_MS (${limits.storeWaitMs} ms) for one of its DEA_SIGNIN_DB_CONNECTIONS (${limits.storeConnections}) places: the store answers slowly or sign-ins are many`,
        ),
        { code: 'ETIMEDOUT' },
      );
    this.store = storeInLane(store, this.storeLane, limits.storeWaitMs, tooLong);
  }

  /** Sign-ins in progress, and calls of theirs holding or waiting for a store place. */
  get load(): { signIns: number; storeCalls: { running: number; waiting: number } } {
    return { signIns: this.inFlight.load.running, storeCalls: this.storeLane.load };
  }

  /** Runs one sign-in within the bound; error 140 with Retry-After at once beyond it. */
  async admitted<T>(signIn: () => Promise<T>): Promise<T> {
    const leave = this.inFlight.tryEnter();
    if (leave === undefined) {
      this.onRefused();
      throw tooManyRequests(SIGN_IN_BUSY_RETRY_SECONDS);
    }
    try {
      return await signIn();
    } finally {
      leave();
    }
  }
}

/** The store with every call of its repositories made in the lane (one store call: one connection at most). */
export function storeInLane(store: Store, lane: Bulkhead, maxWaitMs?: number, tooLong?: () => Error): Store {
  const laned = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'object' || value === null) return value;
      if (!laned.has(key)) laned.set(key, repositoryInLane(value, lane, maxWaitMs, tooLong));
      return laned.get(key);
    },
  });
}

function repositoryInLane(
  repository: object,
  lane: Bulkhead,
  maxWaitMs: number | undefined,
  tooLong: (() => Error) | undefined,
): object {
  return new Proxy(repository, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        lane.run(
          async () => {
            // Other work waiting for the event loop (a verification's request) goes first: on the
            // embedded store the statements run on this thread, and a chain of them would hold it.
            await new Promise<void>((resolve) => setImmediate(resolve));
            return (await value.apply(target, args)) as unknown;
          },
          maxWaitMs,
          tooLong,
        );
    },
  });
}

/** The longest a step of background work waits for the requests in flight. */
const TURN_MAX_WAIT_MS = 250;

/**
 * Background work of a server (a directory sync's batches, whichever process asked for it) and the
 * requests it answers, in turns: the work asks for its turn between its steps and gets it once no
 * request is in flight, or once it has waited as long as its last step took (so that a steady
 * stream of requests still leaves it about half the time), never longer than TURN_MAX_WAIT_MS. On
 * the embedded store a step holds the event loop whole (its statements answer at once): without
 * turns a sign-in waited for a whole batch at each of its own steps. A process that answers no
 * requests (`dea`) gives the turn at once.
 */
export class RequestTurns {
  private inFlight = 0;
  private waiting: (() => void)[] = [];

  /** A request begins; the function returned ends it (once). */
  begin(): () => void {
    this.inFlight += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const go of this.waiting.splice(0)) go();
    };
  }

  /** Requests being answered now. */
  get requests(): number {
    return this.inFlight;
  }

  /** The work's turn after a step that took `stepMs`: the event loop's other callbacks first, then no request in flight. */
  async turn(stepMs: number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const go = () => {
        clearTimeout(timer);
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve();
      };
      const timer = setTimeout(go, Math.min(Math.max(stepMs, 1), TURN_MAX_WAIT_MS));
      this.waiting.push(go);
    });
  }
}
