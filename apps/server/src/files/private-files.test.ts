import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServices } from '../bootstrap.js';
import { runCli } from '../cli/run.js';
import { testConfig } from '../testing/test-app.js';
import { OpenPrivateFileError, readPrivateFile, readPrivateFileSync } from './private-files.js';

const parent = mkdtempSync(join(tmpdir(), 'dea-modes-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('files holding a secret', () => {
  const secretFile = (mode: number): string => {
    const path = join(parent, `secret-${mode.toString(8)}`);
    writeFileSync(path, 'a secret\n', { mode });
    chmodSync(path, mode);
    return path;
  };

  it.each([0o600, 0o400, 0o700])('reads one of mode %o', async (mode) => {
    const path = secretFile(mode);
    expect(readPrivateFileSync(path).toString()).toBe('a secret\n');
    expect((await readPrivateFile(path)).toString()).toBe('a secret\n');
  });

  it.each([0o644, 0o640, 0o604, 0o660, 0o620, 0o602, 0o666])(
    'refuses one of mode %o, naming the file and chmod 600',
    async (mode) => {
      const path = secretFile(mode);
      const message = `the password file ${path} may be read by others than its owner (mode 0${mode.toString(8)}): refused, as ssh refuses such a key; run chmod 600 ${path}`;
      expect(() => readPrivateFileSync(path, 'the password file ')).toThrow(message);
      await expect(readPrivateFile(path, 'the password file ')).rejects.toThrow(message);
      await expect(readPrivateFile(path)).rejects.toBeInstanceOf(OpenPrivateFileError);
    },
  );

  it('refuses a secret.key in the data folder that others may read, at the start and in dea', async () => {
    const dataDir = join(parent, 'open-secret');
    mkdirSync(dataDir, { mode: 0o700 });
    const key = join(dataDir, 'secret.key');
    writeFileSync(key, `${Buffer.alloc(32, 4).toString('base64')}\n`, { mode: 0o644 });
    chmodSync(key, 0o644);
    await expect(startServices(testConfig({ DEA_SECRET: '' }, dataDir))).rejects.toThrow(
      `the server secret ${key} may be read by others than its owner (mode 0644): refused, as ssh refuses such a key; run chmod 600 ${key}`,
    );
    chmodSync(key, 0o600);
    const { services } = await startServices(testConfig({ DEA_SECRET: '' }, dataDir));
    await services.store.close();
    chmodSync(key, 0o640);
    const out: string[] = [];
    const code = await runCli(['user', 'list'], {
      env: { DEA_DATA_DIR: dataDir },
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    expect({ code, out }).toEqual({
      code: 1,
      out: [
        `the server secret ${key} may be read by others than its owner (mode 0640): refused, as ssh refuses such a key; run chmod 600 ${key}`,
      ],
    });
  });
});

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
