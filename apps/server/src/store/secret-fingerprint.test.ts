import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startServices } from '../bootstrap.js';
import { runCli } from '../cli/run.js';
import { createTestDatabase } from '../testing/postgres-cluster.js';
import { testConfig } from '../testing/test-app.js';

const folders: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dea-fingerprint-'));
  folders.push(dir);
  return dir;
};
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const secret = (fill: number) => Buffer.alloc(32, fill).toString('base64');

describe('one secret per store', () => {
  it('stops an instance and the CLI that bring another DEA_SECRET, naming both fingerprints, never the secret', async () => {
    const database = await createTestDatabase(inject('postgresUrl'));
    try {
      const first = await startServices(testConfig({ DEA_SECRET: secret(1) }, folder(), database.url));
      const failure = await startServices(
        testConfig({ DEA_SECRET: secret(2) }, folder(), database.url),
      ).catch((error: unknown) => error as Error);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(
        /^DEA_SECRET is not the secret this store was set up with \(fingerprint [\w-]{16}, the store's [\w-]{16}\)/,
      );
      expect((failure as Error).message).not.toContain(secret(2));
      // The same secret starts, on any number of instances.
      const second = await startServices(testConfig({ DEA_SECRET: secret(1) }, folder(), database.url));

      const err: string[] = [];
      const code = await runCli(['user', 'list'], {
        env: { DATABASE_URL: database.url, DEA_SECRET: secret(3), DEA_DATA_DIR: folder() },
        out: () => undefined,
        err: (line) => err.push(line),
      });
      expect(code).toBe(1);
      expect(err.join('\n')).toContain('DEA_SECRET is not the secret this store was set up with');
      await first.services.store.close();
      await second.services.store.close();
    } finally {
      await database.drop();
    }
  });

  it('agrees on one fingerprint when instances start at the same moment on a new store', async () => {
    const database = await createTestDatabase(inject('postgresUrl'));
    try {
      const started = await Promise.allSettled(
        [1, 2, 1, 2].map((fill) =>
          startServices(testConfig({ DEA_SECRET: secret(fill) }, folder(), database.url)),
        ),
      );
      const ok = started.filter((result) => result.status === 'fulfilled');
      // Whichever secret came first, only the instances with it are running.
      expect(ok).toHaveLength(2);
      for (const result of ok) await result.value.services.store.close();
    } finally {
      await database.drop();
    }
  });
});
