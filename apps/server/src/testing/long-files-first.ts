import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (the guides' commands one by one, the release's checks, the Samba
 * domain controller, a pruned copy of the checkout, whose processes keep the cores busy): they start
 * first. On a fresh clone Vitest has no timings of its own and starts the largest files first: one
 * of these, small but long, starting last would hold the whole run up by its length (the pruned
 * copy, 27 s, was the last file to end). Among them the longest file that waits (the directory's
 * failover, about 30 s of timeouts and 1.4 CPU-seconds): there it waits beside files whose processes
 * compute; later in the run it would meet other waiting files and leave the cores idle.
 */
const LONGEST: readonly RegExp[] = [
  /readme-cli\.test\.ts$/,
  /directory\/ldap-failover\.test\.ts$/,
  /release\/release\.process\.test\.ts$/,
  /directory\/active-directory-sync\.test\.ts$/,
  /production-tree\.test\.ts$/,
];

/**
 * The files that spend much of their time waiting (on a process they started, a drain, a
 * throttle's window, a restarted database) and are long enough to matter (docs/benchmarks.md, "The
 * test suite"). Started together, as they were after the longest,
 * they left a core idle for about a minute; spread among the files that compute, each waits beside
 * two that keep the cores busy.
 */
const WAITING: readonly RegExp[] = [
  /\.process\.test\.ts$/,
  /freeradius-front\.test\.ts$/,
  /signin-throttle\.test\.ts$/,
  /http\/timeouts\.test\.ts$/,
  /webhooks\/webhooks-[\w-]+\.test\.ts$/,
  /routes\/api\/delivery\.test\.ts$/,
  /domain\/bulkheads\.test\.ts$/,
];

/** How many files that compute follow each waiting one (the suite runs three at a time). */
const BETWEEN_WAITING = 2;

const waits = (file: TestSpecification): boolean => WAITING.some((pattern) => pattern.test(file.moduleId));

/**
 * Vitest's order (failed first, then longest by its cache, or by size on a fresh clone), with the
 * longest files known ahead, then one waiting file before every two others.
 */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number =>
      LONGEST.findIndex((pattern) => pattern.test(file.moduleId));
    const longest = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b));
    const rest = sorted.filter((file) => rank(file) < 0);
    const waiting = rest.filter(waits);
    const computing = rest.filter((file) => !waits(file));
    const spread: TestSpecification[] = [];
    computing.forEach((file, index) => {
      if (index % BETWEEN_WAITING === 0 && waiting.length > 0) spread.push(waiting.shift()!);
      spread.push(file);
    });
    return [...longest, ...spread, ...waiting];
  }
}
