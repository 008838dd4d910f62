import { expect, it } from 'vitest';
import { EVALUATED_FOR_FILE } from './evaluated-for';

it("drops the worker's modules before this file, and evaluates them for this file", () => {
  const file = expect.getState().testPath;
  expect((globalThis as { modulesDroppedFor?: string }).modulesDroppedFor).toBe(file);
  // testing/setup.ts imported it for every file before this one in its worker too.
  expect(EVALUATED_FOR_FILE).toBe(file);
});
