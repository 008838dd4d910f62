import { test as base } from '@playwright/test';
import { startServer, type RunningServer } from './start-server';

/**
 * A file's scenarios on a server of their own (`extraEnv` its settings beyond the scenarios'):
 * started by the first test that opens a page, for the file's tests (they run in turn in one
 * worker), and stopped after them. A fixture of each test, not of the worker: a worker-scoped one
 * would start a worker process of its own for the file (workers are shared only by the files with
 * the same worker fixtures), about 6 CPU-seconds. `server()` is that server, once a page is open.
 */
export function onOwnServer(extraEnv: Record<string, string> = {}) {
  let running: RunningServer | undefined;
  const test = base.extend({
    // oxlint-disable-next-line no-empty-pattern
    baseURL: async ({}, use) => {
      running ??= await startServer(extraEnv);
      await use(running.baseUrl);
    },
  });
  test.afterAll(async () => {
    await running?.stop();
    running = undefined;
  });
  const server = (): RunningServer => {
    if (running === undefined) throw new Error('the server starts with the first page a test opens');
    return running;
  };
  return { test, server };
}
