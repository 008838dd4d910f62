import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store.js';
import type { DirectoryUsers, SyncSummary } from './directory-users.js';

/**
 * A directory sync that `dea directory sync` asks of the server running on the same embedded
 * store. SQLite lets one process write at a time, and a server waiting for the file blocks its
 * whole event loop: a sync written from the command line beside it stopped the page, sign-in and
 * verification for as long as it ran. The server writes the sync itself instead, between its own
 * requests, as it writes its background sync; the command asks, follows and prints it. The
 * request and the answer are two rows of the store's `meta` table, so nothing else need listen.
 */

const REQUEST = 'directory:sync-request';
const ANSWER = 'directory:sync-answer';

interface SyncRequest {
  id: string;
  full: boolean;
}

export type SyncAnswer =
  | { id: string; state: 'running'; seen: number }
  | { id: string; state: 'done'; summary: SyncSummary }
  | { id: string; state: 'failed'; error: string };

function parsed<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Asks the server for a sync (with `full`, a full pass); answers the request's id. */
export async function askServerToSync(store: Store, full: boolean): Promise<string> {
  const id = randomUUID();
  await store.meta.set(REQUEST, JSON.stringify({ id, full } satisfies SyncRequest));
  return id;
}

/** What the server says of the request `id` so far; undefined until it took it. */
export async function answerOf(store: Store, id: string): Promise<SyncAnswer | undefined> {
  const answer = parsed<SyncAnswer>(await store.meta.get(ANSWER));
  return answer?.id === id ? answer : undefined;
}

/** How often a running sync's count of users read is written for the command to print. */
const PROGRESS_MS = 1000;

/**
 * The server's side: `take` (called every second) runs a sync asked and not answered yet, one at a
 * time, and writes how it goes. `audit` records the finished sync as the command would.
 */
export class SyncRequests {
  private taking = false;

  constructor(
    private readonly store: Store,
    private readonly directoryUsers: DirectoryUsers,
    private readonly now: () => number,
    private readonly audit: (summary: SyncSummary) => Promise<void>,
  ) {}

  /** Runs the sync asked, if one is; answers whether it ran one. */
  async take(): Promise<boolean> {
    if (this.taking) return false;
    this.taking = true;
    try {
      const request = parsed<SyncRequest>(await this.store.meta.get(REQUEST));
      if (request === undefined || typeof request.id !== 'string') return false;
      // Answered already (by this server or one before it on the same store).
      if ((await answerOf(this.store, request.id)) !== undefined) return false;
      await this.answer({ id: request.id, state: 'running', seen: 0 });
      let written = this.now();
      let progress = Promise.resolve();
      try {
        const summary = await this.directoryUsers.syncAll(
          (seen) => {
            if (this.now() - written < PROGRESS_MS) return;
            written = this.now();
            progress = progress.then(() => this.answer({ id: request.id, state: 'running', seen }));
          },
          { full: request.full === true },
        );
        await progress;
        await this.audit(summary);
        await this.answer({ id: request.id, state: 'done', summary });
      } catch (error) {
        await progress.catch(() => undefined);
        await this.answer({ id: request.id, state: 'failed', error: (error as Error).message });
      }
      return true;
    } finally {
      this.taking = false;
    }
  }

  private answer(answer: SyncAnswer): Promise<void> {
    return this.store.meta.set(ANSWER, JSON.stringify(answer));
  }
}
