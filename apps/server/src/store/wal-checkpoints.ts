import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * What the thread runs: PASSIVE checkpoints of the embedded store's write-ahead log on a connection
 * of its own. Plain CommonJS given as text, so it runs the same from the sources and the build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { timeout: workerData.busyMs });
db.pragma('synchronous = NORMAL');
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** How far the log may grow before the server's own connection copies it back (the thread failing). */
export const WAL_BACKSTOP_PAGES = 20_000;

export interface WalCheckpoints {
  close(): Promise<void>;
}

/**
 * Copies the write-ahead log back into the embedded store on a thread of its own, every
 * `intervalMs`: SQLite otherwise does it inside the commit that fills the log, with an fsync, on
 * the one thread that answers every request (about a third of a code's issue, and a stall of every
 * request under way). A PASSIVE checkpoint never waits for, nor blocks, the server's writes. Should
 * the thread fail, the server's connection still checkpoints itself at WAL_BACKSTOP_PAGES.
 */
export function checkpointInBackground(
  file: string,
  intervalMs: number,
  onProblem: (message: string) => void,
): WalCheckpoints {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file,
      intervalMs,
      busyMs: 5000,
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  });
  // A checkpoint that cannot run is reported once until one runs again: nothing is lost, the log grows.
  let failing = false;
  worker.on('message', (message: { ok: boolean; error?: string }) => {
    if (message.ok) failing = false;
    else if (!failing) {
      failing = true;
      onProblem(`the embedded store's log could not be checkpointed: ${message.error ?? 'unknown error'}`);
    }
  });
  worker.on('error', (error) =>
    onProblem(`the embedded store's checkpoint thread stopped: ${error.message}`),
  );
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  worker.unref();
  return {
    close: async () => {
      if (running) worker.postMessage('close');
      await exited;
    },
  };
}
