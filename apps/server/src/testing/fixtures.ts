import { test as base } from 'vitest';
import { type CliFixture, openCliFixture } from './cli.js';
import { openTestStore, type StoreKind } from './stores.js';
import { createTestApp, type TestApp } from './test-app.js';

/**
 * Per-test fixtures (Vitest `test.extend`): what a test destructures is made for it alone and
 * taken down when it ends, so tests of a file may run concurrently without seeing each other's
 * rows. The store kind is SQLite unless a suite says otherwise:
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
    const app = await createTestApp(storeKind, settings);
    started.push(app);
    return app;
  };
});

/** `cli`: `dea` run in-process on a fresh store of the suite's kind with the built-in content. */
export const cliTest = kindTest.extend('cli', async ({ storeKind }, { onCleanup }): Promise<CliFixture> => {
  const cli = await openCliFixture(storeKind);
  onCleanup(() => cli.dispose());
  return cli;
});
