import { usernameOrThrow } from '@dea/contract';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from './crypto/password-hash.js';
import { seedDemoData } from './seed/demo-data.js';
import { openStore } from './store/open-store.js';
import { runDea } from './testing/processes.js';

const dea = runDea;

describe('the dea process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-cli-process-'));
  const env = { DEA_DATA_DIR: dataDir, DEA_SECRET: Buffer.alloc(32, 7).toString('base64') };
  beforeAll(async () => {
    const store = await openStore({ dataDir });
    await seedDemoData(store, 10, Date.now());
    await store.close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lists the users of a seeded store', async () => {
    const result = await dea(['user', 'list'], env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      'demo-channel  "Chris Channel"  locale en  time zone UTC (default)  groups Codes by channel',
    );
  });

  it('reads a password from standard input and settings from --config', async () => {
    const config = join(dataDir, 'config.json');
    writeFileSync(config, JSON.stringify({ DEA_DATA_DIR: dataDir, DEA_PASSWORD_HASH_COST: 10 }));
    const added = await dea(
      ['--config', config, 'user', 'add', '--username', 'henry', '--full-name', 'Henry', '--password-stdin'],
      { DEA_SECRET: env.DEA_SECRET },
      'piped password\n',
    );
    expect(added).toMatchObject({ code: 0, stdout: expect.stringContaining('Added user henry') });
    const store = await openStore({ dataDir });
    const henry = await store.users.findByUsername(usernameOrThrow('henry'));
    await store.close();
    expect(await verifyPassword('piped password', henry?.passwordHash ?? '')).toBe(true);
  });

  it('explains a mistake in one line on stderr with exit code 2, and a bad setting', async () => {
    const wrong = await dea(['channel', 'set', 'demo', 'fax', '123'], env);
    expect(wrong).toMatchObject({ code: 2, stdout: '' });
    expect(wrong.stderr).toMatch(/^unknown channel key "fax" .*\n$/);
    const missing = await dea(['user', 'disable', 'nobody'], env);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'no user named "nobody"\n' });
    const setting = await dea(['user', 'list'], { ...env, DEA_CONFIG_FILE: join(dataDir, 'none.json') });
    expect(setting).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('DEA_CONFIG_FILE: cannot read'),
    });
  });

  it('refuses trusted proxies that cover nearly every address, as the server does, without a stack trace', async () => {
    for (const proxies of ['0.0.0.0/0', '0.0.0.0/1,128.0.0.0/1']) {
      const result = await dea(['user', 'list'], { ...env, DEA_TRUST_PROXY: proxies });
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toContain(`DEA_TRUST_PROXY="${proxies}": refused, because together they cover`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
