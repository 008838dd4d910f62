import { expect, it } from 'vitest';
import { EVALUATED_FOR_FILE } from './stores.js';

it("drops the worker's modules before this file, and evaluates them for this file", () => {
  const file = expect.getState().testPath;
  expect((globalThis as { modulesDroppedFor?: string }).modulesDroppedFor).toBe(file);
  // Nearly every file imports testing/stores.ts: with modules shared between the files of a
  // worker, this file would see the evaluation of the first of them.
  expect(EVALUATED_FOR_FILE).toBe(file);
});
