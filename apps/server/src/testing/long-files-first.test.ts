import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongFilesFirst } from './long-files-first.js';

/** A file of the server's project as the sequencer sees it, on a fresh clone (no timings cached). */
const spec = (path: string): TestSpecification =>
  ({
    moduleId: `/repo/apps/server/src/${path}`,
    project: { name: 'server', config: { sequence: { groupOrder: 0 }, isolate: false } },
  }) as unknown as TestSpecification;

const freshClone = {
  config: { root: '/repo' },
  cache: { getFileTestResults: () => undefined, getFileStats: () => undefined },
} as unknown as Vitest;

const order = async (paths: string[]): Promise<string[]> =>
  (await new LongFilesFirst(freshClone).sort(paths.map(spec))).map((file) =>
    file.moduleId.replace('/repo/apps/server/src/', ''),
  );

describe('the order of the server files (testing/long-files-first.ts)', () => {
  it('starts the longest first, then one waiting file before every two others, and loses none', async () => {
    const files = [
      'a.test.ts',
      'server.process.test.ts',
      'b.test.ts',
      'directory/active-directory-sync.test.ts',
      'c.test.ts',
      'routes/signin-throttle.test.ts',
      'd.test.ts',
      'release/release.process.test.ts',
      'e.test.ts',
      'http/timeouts.test.ts',
      'readme-cli.test.ts',
      'webhooks/webhooks-retries.test.ts',
      'radius/freeradius-front.test.ts',
      'production-tree.test.ts',
      'routes/api/delivery.test.ts',
      'directory/ldap-failover.test.ts',
    ];
    expect(await order(files)).toEqual([
      'readme-cli.test.ts',
      // Long and waiting: at the start, beside files whose processes compute.
      'directory/ldap-failover.test.ts',
      'release/release.process.test.ts',
      'directory/active-directory-sync.test.ts',
      'production-tree.test.ts',
      'server.process.test.ts',
      'a.test.ts',
      'b.test.ts',
      'routes/signin-throttle.test.ts',
      'c.test.ts',
      'd.test.ts',
      'http/timeouts.test.ts',
      'e.test.ts',
      // More waiting files than room among the others: they follow, in order.
      'webhooks/webhooks-retries.test.ts',
      'radius/freeradius-front.test.ts',
      'routes/api/delivery.test.ts',
    ]);
  });

  it('keeps every file once, with or without the known ones', async () => {
    const plain = ['x.test.ts', 'y.test.ts', 'z.test.ts'];
    expect(await order(plain)).toEqual(plain);
    expect(await order([])).toEqual([]);
  });
});
