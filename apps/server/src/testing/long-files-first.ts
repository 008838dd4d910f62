import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (they start processes, or run the guides' commands one by one), as
 * measured in docs/benchmarks.md. On a fresh clone Vitest has no timings of its own and starts files
 * in no particular order: one of these starting last would hold the whole run up by its length.
 */
const LONGEST: readonly RegExp[] = [
  /readme-cli\.test\.ts$/,
  /\.process\.test\.ts$/,
  /freeradius-front\.test\.ts$/,
  /signin-throttle\.test\.ts$/,
  /http\/timeouts\.test\.ts$/,
  /directory\/active-directory\.test\.ts$/,
  /webhooks\/webhooks\.test\.ts$/,
];

/** Vitest's order (failed first, then longest by its cache), with the longest files known ahead. */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const known = (file: TestSpecification): number =>
      LONGEST.some((pattern) => pattern.test(file.moduleId)) ? 0 : 1;
    return [...sorted].sort((a, b) => known(a) - known(b));
  }
}
