import { test as base } from 'vitest';
import type { CliFixture } from './cli.js';
import { openTestStore, type StoreKind } from './stores.js';
import type { TestApp } from './test-app.js';

/**
 * Per-test fixtures (Vitest `test.extend`): what a test destructures is made for it alone and
 * taken down when it ends, so tests of a file may run concurrently without seeing each other's
 * rows. The app and the CLI are imported by the first test that asks for one: a file of domain
 * tests never loads the doors (each file has its own module graph, vitest.config.ts). The store
 * kind is SQLite unless a suite says otherwise:
 *
 *   describe.each(STORE_KINDS)('… on %s', (kind) => {
 *     storeTest.override('storeKind', kind);
 *     storeTest('…', async ({ testStore }) => { … });
 *   });
 */
const kindTest = base.extend('storeKind', 'sqlite' as StoreKind);

/** `testStore`: a fresh, migrated store of the suite's kind. */
export const storeTest = kindTest.extend('testStore', async ({ storeKind }, { onCleanup }) => {
  const testStore = await openTestStore(storeKind);
  onCleanup(() => testStore.dispose());
  return testStore;
});

/**
 * `startApp(settings)`: an app built like production on a fresh store of the suite's kind, with
 * these settings; every app a test started is closed when it ends.
 */
export const appTest = kindTest.extend('startApp', ({ storeKind }, { onCleanup }) => {
  const started: TestApp[] = [];
  onCleanup(async () => {
    await Promise.all(started.map((app) => app.close()));
  });
  return async (settings: Record<string, string> = {}): Promise<TestApp> => {
    const { createTestApp } = await import('./test-app.js');
    const app = await createTestApp(storeKind, settings);
    started.push(app);
    return app;
  };
});

/** `cli`: `dea` run in-process on a fresh store of the suite's kind with the built-in content. */
export const cliTest = kindTest.extend('cli', async ({ storeKind }, { onCleanup }): Promise<CliFixture> => {
  const { openCliFixture } = await import('./cli.js');
  const cli = await openCliFixture(storeKind);
  onCleanup(() => cli.dispose());
  return cli;
});
