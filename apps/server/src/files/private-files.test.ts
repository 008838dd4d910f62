import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { transformSync } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServices } from '../bootstrap.js';
import { runCli } from '../cli/run.js';
import { runAsNobody } from '../testing/as-nobody.js';
import { testConfig } from '../testing/test-app.js';
import { OpenPrivateFileError, readPrivateFile, readPrivateFileSync } from './private-files.js';

const HERE = dirname(fileURLToPath(import.meta.url));
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

  it.skipIf(process.getuid?.() !== 0)(
    "reads a file of root's that only its group may read, as a service of that group (the package's secret, root:dea 0440), and refuses it when that group may change it",
    () => {
      const folder = mkdtempSync(join(tmpdir(), 'dea-group-secret-'));
      chmodSync(folder, 0o755);
      const path = join(folder, 'secret');
      writeFileSync(path, 'a secret\n');
      const nogroup = Number(
        execFileSync('getent', ['group', 'nogroup'], { encoding: 'utf8' }).split(':')[2],
      );
      chownSync(path, 0, nogroup);
      // The module as JavaScript in that folder: nobody may not be able to read the checkout.
      const module = join(folder, 'private-files.mjs');
      writeFileSync(
        module,
        transformSync(readFileSync(join(HERE, 'private-files.ts'), 'utf8'), { loader: 'ts', format: 'esm' })
          .code,
      );
      chmodSync(module, 0o644);
      const readAsNobody = () =>
        runAsNobody(
          `import { readPrivateFileSync } from ${JSON.stringify(module)};
           try { process.stdout.write(readPrivateFileSync(${JSON.stringify(path)}).toString()); }
           catch (error) { process.stdout.write(error.message); process.exitCode = 3; }`,
          folder,
        );
      try {
        for (const mode of [0o440, 0o640]) {
          chmodSync(path, mode);
          expect(readAsNobody()).toMatchObject({ status: 0, stdout: 'a secret\n' });
        }
        for (const mode of [0o460, 0o444, 0o442]) {
          chmodSync(path, mode);
          expect(readAsNobody()).toMatchObject({
            status: 3,
            stdout: expect.stringMatching(/may be read by others than its owner/),
          });
        }
        // Root itself has no need of the group: the same file is refused to a process of root's.
        chmodSync(path, 0o440);
        expect(() => readPrivateFileSync(path)).toThrow(OpenPrivateFileError);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
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
