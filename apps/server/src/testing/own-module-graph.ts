import { expect, vi } from 'vitest';

// Before each test file of the server project (its setupFiles, vitest.config.ts, ADR 0049): the
// modules the runner evaluated for the files before it are dropped, so this file evaluates the
// product's code, the contract and the bundled libraries afresh, with its own vi.mock. Node's own
// modules and the libraries it loads itself (Fastify, pg, better-sqlite3's binding) stay loaded
// for the worker.
vi.resetModules();

/** The file the modules were last dropped for (testing/own-module-graph.test.ts reads it). */
(globalThis as { modulesDroppedFor?: string }).modulesDroppedFor = expect.getState().testPath;
