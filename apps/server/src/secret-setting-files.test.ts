import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configProblems } from './testing/config-problems.js';
import { runCli } from './cli/run.js';
import { loadConfig, loadConfigWithFile } from './config.js';

const folder = mkdtempSync(join(tmpdir(), 'dea-setting-files-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const SECRET = Buffer.alloc(32, 7).toString('base64');

/** A file of that content and mode in the test's folder. */
function file(name: string, content: string, mode = 0o600): string {
  const path = join(folder, name);
  writeFileSync(path, content, { mode });
  chmodSync(path, mode);
  return path;
}

const problemsOf = (env: Record<string, string>): string[] => configProblems(() => loadConfig(env));

describe('DEA_SECRET_FILE and DATABASE_URL_FILE', () => {
  it('fill DEA_SECRET and DATABASE_URL from their files, without the trailing newline', () => {
    const config = loadConfig({
      DEA_SECRET_FILE: file('secret', `${SECRET}\n`),
      DATABASE_URL_FILE: file('database-url', 'postgres://dea:pa%24%24@db.example.com/dea\n'),
    });
    expect(config.secret).toBe(SECRET);
    expect(config.databaseUrl).toBe('postgres://dea:pa%24%24@db.example.com/dea');
  });

  it('are read when a config file names them too', () => {
    const secretFile = file('secret-of-config', SECRET);
    const configFile = file('config.json', JSON.stringify({ DEA_SECRET_FILE: secretFile }));
    expect(loadConfigWithFile({}, configFile).secret).toBe(SECRET);
  });

  it('refuse a file others may read, a missing or empty file, and a setting given twice, naming both settings', () => {
    const open = file('open-secret', SECRET, 0o644);
    expect(problemsOf({ DEA_SECRET_FILE: open })).toEqual([
      expect.stringMatching(
        new RegExp(
          `^DEA_SECRET_FILE: ${open} may be read by others than its owner \\(mode 0644\\).*chmod 600`,
        ),
      ),
    ]);
    const missing = join(folder, 'missing');
    expect(problemsOf({ DATABASE_URL_FILE: missing })).toEqual([
      `DATABASE_URL_FILE: cannot read ${missing} (ENOENT); it must hold DATABASE_URL`,
    ]);
    const empty = file('empty', '\n');
    expect(problemsOf({ DEA_SECRET_FILE: empty })).toEqual([
      `DEA_SECRET_FILE: ${empty} is empty; it must hold DEA_SECRET`,
    ]);
    expect(problemsOf({ DEA_SECRET_FILE: file('secret-2', SECRET), DEA_SECRET: SECRET })).toEqual([
      'DEA_SECRET_FILE: DEA_SECRET is set too; keep one of the two',
    ]);
  });

  it('are what the dea command reads as well: dea migrate makes a store with the secret of the file, generating none', async () => {
    const dataDir = join(folder, 'data');
    const env = { DEA_DATA_DIR: dataDir, DEA_SECRET_FILE: file('cli-secret', `${SECRET}\n`) };
    const io = { env, out: () => undefined, err: () => undefined };
    expect(await runCli(['migrate'], io)).toBe(0);
    expect(await runCli(['user', 'list'], io)).toBe(0);
    // migrate generates a secret.key only when no secret is set: the file's secret was the one taken.
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
  });
});
