import { expect } from 'vitest';

/**
 * The test file whose module graph evaluated this module, which testing/setup.ts imports for every
 * file: the file itself, never one before it in its worker (vitest.config.ts, ADR 0049).
 */
export const EVALUATED_FOR_FILE = expect.getState().testPath;
