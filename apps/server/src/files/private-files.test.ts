import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServices } from '../bootstrap.js';
import { testConfig } from '../testing/test-app.js';

const parent = mkdtempSync(join(tmpdir(), 'dea-modes-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('the embedded store on disk', () => {
  it('creates its data folder 0700 and every file in it (database, WAL, secret) 0600', async () => {
    const dataDir = join(parent, 'data', 'nested');
    const config = testConfig({ DEA_SECRET: '' }, dataDir);
    const { services } = await startServices(config);
    try {
      await services.store.users.count();
      expect(modeOf(dataDir)).toBe(0o700);
      const files = readdirSync(dataDir);
      expect(files).toEqual(expect.arrayContaining(['dea.sqlite', 'secret.key']));
      for (const file of files) expect([file, modeOf(join(dataDir, file))]).toEqual([file, 0o600]);
    } finally {
      await services.store.close();
    }
  });
});
