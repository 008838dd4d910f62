import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PersonChange } from '../domain/identity/people.js';
import type { TestStore } from './stores.js';

const WORKER = fileURLToPath(new URL('./store-worker.ts', import.meta.url));
/** The server's tsconfig, whose paths name the contract's sources (as vitest.config.ts does). */
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

/** The changes a second instance makes, answered as the identity module answers them. */
export interface SecondInstance {
  setPassword(userId: string, hash: string): Promise<Pick<PersonChange, 'changed' | 'sessionsEnded'>>;
  disable(userId: string): Promise<Pick<PersonChange, 'changed' | 'sessionsEnded'>>;
  enable(userId: string): Promise<Pick<PersonChange, 'changed' | 'sessionsEnded'>>;
  close(): Promise<void>;
}

/**
 * A second instance of the test's store in a thread of its own, as a second server or the CLI
 * beside a server would be: on the embedded store, two instances in one thread would wait on each
 * other's lock (SQLite waits for a lock by blocking its thread), which two processes never do.
 */
export async function openSecondInstance(testStore: TestStore): Promise<SecondInstance> {
  const worker = new Worker(
    `const { tsImport } = await import('tsx/esm/api'); await tsImport(${JSON.stringify(WORKER)}, { parentURL: import.meta.url, tsconfig: ${JSON.stringify(TSCONFIG)} });`,
    { eval: true, workerData: { dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl } },
  );
  const waiting = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  let next = 0;
  const ready = new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: { ready?: true; id: number; value?: unknown; error?: string }) => {
      if (message.ready === true) return resolve();
      const call = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error !== undefined) call?.reject(new Error(message.error));
      else call?.resolve(message.value as never);
    });
  });
  await ready;
  const ask = <T>(operation: string, userId = '', hash = ''): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, operation, userId, hash });
    });
  return {
    setPassword: (userId, hash) => ask('setPassword', userId, hash),
    disable: (userId) => ask('disable', userId),
    enable: (userId) => ask('enable', userId),
    async close() {
      await ask('close');
      await worker.terminate();
    },
  };
}
