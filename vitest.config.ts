import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongFilesFirst } from './apps/server/src/testing/long-files-first.ts';

const contractSource = fileURLToPath(new URL('./packages/contract/src/index.ts', import.meta.url));

export default defineConfig({
  resolve: { alias: { '@dea/contract': contractSource } },
  test: {
    // Vitest's default on this 2-core machine is one worker: the files ran one after another while
    // most of their time went waiting on PostgreSQL, slapd, child processes and sockets. Three
    // keep both cores busy (measured in docs/benchmarks.md); `--maxWorkers=N` changes it for a run.
    maxWorkers: 3,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'contract',
          include: ['packages/contract/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: ['apps/server/src/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['apps/server/src/testing/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // A poll waits on a condition; its deadline is only a safety net, generous so that a
          // loaded machine does not fail a test that would pass (Vitest's default is 1 s).
          expect: { poll: { timeout: 15_000 } },
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          environmentOptions: { happyDOM: { url: 'http://host.test/dea/' } },
          setupFiles: ['apps/web/src/testing/setup.ts'],
        },
      },
    ],
  },
});
