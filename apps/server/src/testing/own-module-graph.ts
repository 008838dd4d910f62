import { vi } from 'vitest';

// Before each test file of the server project (its setupFiles, vitest.config.ts): the modules the
// runner evaluated for the files before it are dropped, so this file evaluates the product's code,
// the contract and the bundled libraries afresh, with its own vi.mock. Node's own modules and the
// libraries it loads itself (Fastify, pg, better-sqlite3's binding) stay loaded for the worker.
vi.resetModules();
