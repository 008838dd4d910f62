import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * A new folder of the test's own in the run's scratch folder (`dea-<name>-…`), removed when the
 * test ends, passed or failed. A test that runs concurrently passes its context's `onTestFinished`.
 */
export function testFolder(
  name: string,
  whenFinished: (cleanup: () => void) => void = onTestFinished,
): string {
  const folder = mkdtempSync(join(tmpdir(), `dea-${name}-`));
  whenFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
