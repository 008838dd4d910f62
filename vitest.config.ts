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
    // `npm test` runs the web and contract projects with --coverage (scripts/test.mjs): V8's own
    // counters, no instrumented build. The server's project runs apart with its own sources, report
    // folder and floor (scripts/test.mjs SERVER_COVERAGE). The floor fails the run when coverage
    // drops: a little under what `--project web --project contract` measured on 2026-11-26 (lines
    // 95.9, statements 93.9, functions 93.2, branches 89.4). Raise it as tests grow.
    coverage: {
      provider: 'v8',
      include: ['apps/web/src/**/*.{ts,tsx}', 'packages/contract/src/**/*.ts'],
      exclude: ['**/*.test.{ts,tsx}', 'apps/web/src/testing/**', 'apps/web/src/console/testing/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      thresholds: { lines: 94, statements: 92, functions: 91, branches: 87 },
    },
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
          // Each test file imports the app afresh; TypeBox (about 700 modules) and Kysely were most of
          // that. Bundled once per run, they cut the suite's import time by about a quarter
          // (docs/benchmarks.md); the passkey library about 4 % of a route file's CPU more. The
          // tests' OpenID provider (testing/oidc-provider.ts) is bundled as well, which also lets it
          // load where Node's loader does not (its Koa requires an ES module by `module-sync`).
          deps: {
            optimizer: {
              ssr: {
                enabled: true,
                include: [
                  'typebox',
                  'typebox/value',
                  'typebox/compile',
                  'kysely',
                  '@fastify/type-provider-typebox',
                  '@simplewebauthn/server',
                  '@simplewebauthn/server/helpers',
                  '@dea/server > oidc-provider',
                ],
              },
            },
          },
          include: ['apps/server/src/**/*.test.ts'],
          // Each file has its own module graph of the product's code (docs/decisions/0049): before a
          // file, testing/own-module-graph.ts drops what the runner evaluated for the files before
          // it, so the file evaluates the product, the contract and the bundled libraries afresh,
          // with its own vi.mock. The worker process stays, with Node's modules and the libraries
          // Node loads itself (Fastify, pg, the SQLite binding): 3 % more CPU on the suite, where a
          // new process per file (`isolate`) cost 38 % more and a VM context more still (ADR 0049).
          isolate: false,
          setupFiles: ['apps/server/src/testing/own-module-graph.ts'],
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
          // Each file has its own module graph, as the server's files (ADR 0049): a module a file
          // replaces with vi.mock is replaced for that file alone. The DOM is the worker's; what a
          // test leaves in it, testing/setup.ts clears after it.
          isolate: false,
          environment: 'happy-dom',
          environmentOptions: { happyDOM: { url: 'http://host.test/dea/' } },
          setupFiles: ['apps/server/src/testing/own-module-graph.ts', 'apps/web/src/testing/setup.ts'],
          // A deadline as a safety net only: beside the type check, lint and the browser scenarios
          // a test of a few user steps took over the default 5 s on this 2-core machine; longer
          // than one wait of testing/setup.ts (15 s).
          testTimeout: 30_000,
        },
      },
    ],
  },
});
