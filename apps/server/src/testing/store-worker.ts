import { parentPort, workerData } from 'node:worker_threads';
import { People } from '../domain/identity/people.js';
import { openStore } from '../store/open-store.js';

/** The thread of a second instance (second-instance.ts): its own store, changing users when asked. */
const { dataDir, databaseUrl } = workerData as { dataDir: string; databaseUrl: string | undefined };
const store = await openStore({ dataDir, databaseUrl, schema: 'as-is' });
const people = new People(store, Date.now, null);

interface Request {
  id: number;
  operation: 'setPassword' | 'disable' | 'enable' | 'close';
  userId: string;
  hash: string;
}

async function answer(request: Request): Promise<unknown> {
  if (request.operation === 'close') return store.close();
  const by = { door: 'local', actor: 'cli' } as const;
  const { changed, sessionsEnded } =
    request.operation === 'setPassword'
      ? await people.setPassword(by, request.userId, request.hash)
      : await people[request.operation](by, request.userId);
  return { changed, sessionsEnded };
}

parentPort?.on('message', (request: Request) => {
  answer(request).then(
    (value) => parentPort?.postMessage({ id: request.id, value }),
    (error: unknown) => parentPort?.postMessage({ id: request.id, error: String(error) }),
  );
});
parentPort?.postMessage({ ready: true });
