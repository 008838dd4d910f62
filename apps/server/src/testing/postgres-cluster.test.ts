import { describe, expect, inject, it } from 'vitest';
import { durabilityOf, startPostgresCluster } from './postgres-cluster.js';

describe('the PostgreSQL clusters of tests and benchmarks', () => {
  it('tests run without durable commits, a durable cluster (npm run bench:load) flushes every commit as production does', async () => {
    // The run's own cluster (a server of TEST_DATABASE_URL is as its operator set it).
    if (process.env.TEST_DATABASE_URL === undefined)
      expect(await durabilityOf(inject('postgresUrl'))).toEqual({
        fsync: 'off',
        synchronous_commit: 'off',
        full_page_writes: 'off',
      });
    const durable = await startPostgresCluster({ max_connections: '50' }, { durable: true });
    try {
      expect(await durabilityOf(durable.url)).toEqual({
        fsync: 'on',
        synchronous_commit: 'on',
        full_page_writes: 'on',
      });
    } finally {
      await durable.stop();
    }
  }, 60_000);
});
