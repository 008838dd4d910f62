import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { runAsNobody } from './testing/as-nobody.js';
import { configProblems } from './testing/config-problems.js';
import { loadConfigWithFile, SETTINGS } from './config.js';
import { parseSettingsText, readSettingsFiles } from './settings-files.js';

const folders: string[] = [];
function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'dea-settings-files-'));
  folders.push(path);
  return path;
}
afterAll(() => folders.forEach((path) => rmSync(path, { recursive: true, force: true })));

function write(path: string, text: string, mode = 0o600): string {
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
}

const known = (name: string) => Object.hasOwn(SETTINGS, name);

const problemsOf = configProblems;

describe('a settings file', () => {
  it("reads NAME=value lines as systemd's EnvironmentFile does: comments, quotes, spaces", () => {
    const text = [
      '# a comment',
      '; another',
      '',
      'PORT=9000',
      '  HOST = 127.0.0.1  ',
      "DEA_LOGIN_PATH='/a path/with spaces'",
      'DEA_TIME_ZONE="Europe/Berlin"',
      'export DEA_LOG_LEVEL=warn',
      'DEA_CSP_IMAGE_ORIGINS="say \\"hi\\" \\\\ there"',
      'DEA_EMPTY=',
    ].join('\n');
    expect(parseSettingsText(text, '/f').entries).toEqual([
      { name: 'PORT', value: '9000', line: 4 },
      { name: 'HOST', value: '127.0.0.1', line: 5 },
      { name: 'DEA_LOGIN_PATH', value: '/a path/with spaces', line: 6 },
      { name: 'DEA_TIME_ZONE', value: 'Europe/Berlin', line: 7 },
      { name: 'DEA_LOG_LEVEL', value: 'warn', line: 8 },
      { name: 'DEA_CSP_IMAGE_ORIGINS', value: 'say "hi" \\ there', line: 9 },
      { name: 'DEA_EMPTY', value: '', line: 10 },
    ]);
  });

  it('names the file and line of what is not a NAME=value line', () => {
    expect(parseSettingsText('PORT=1\nnot a setting\nHOST="open', '/etc/x.env').problems).toEqual([
      "/etc/x.env line 2: not a NAME=value line (a value with spaces goes in single quotes: NAME='a value')",
      "/etc/x.env line 3: not a NAME=value line (a value with spaces goes in single quotes: NAME='a value')",
    ]);
  });
});

describe('the settings files of DEA_SETTINGS_FILES', () => {
  it('reads files and folders in order, a later one winning, the environment over all', () => {
    const dir = folder();
    const defaults = write(join(dir, 'defaults.env'), 'HOST=127.0.0.1\nPORT=8080\nDEA_LOG_LEVEL=info\n');
    const operator = write(join(dir, 'operator.env'), 'PORT=8443\n');
    const dropIns = join(dir, 'dea.env.d');
    mkdirSync(dropIns);
    write(join(dropIns, '20-later.env'), 'DEA_LOG_LEVEL=error\n');
    write(join(dropIns, '10-first.env'), 'DEA_LOG_LEVEL=warn\nDEA_TIME_ZONE=Europe/Paris\n');
    write(join(dropIns, 'notes.txt'), 'PORT=1\n');
    const list = `${defaults}:${operator}:-${dropIns}:-${join(dir, 'absent.env')}`;
    const files = readSettingsFiles(list, known);
    expect(files.read).toEqual([
      defaults,
      operator,
      join(dropIns, '10-first.env'),
      join(dropIns, '20-later.env'),
    ]);
    expect(files.problems).toEqual([]);
    const config = loadConfigWithFile({ DEA_SETTINGS_FILES: list, DEA_TIME_ZONE: 'UTC' });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8443, logLevel: 'error', timeZone: 'UTC' });
    expect(config.settingsFiles).toEqual({ read: files.read, notices: [] });
  });

  it('stops on a file that is missing unless written with -, naming it', () => {
    const dir = folder();
    const absent = join(dir, 'absent.env');
    expect(problemsOf(() => loadConfigWithFile({ DEA_SETTINGS_FILES: absent }))).toEqual([
      `DEA_SETTINGS_FILES: ${absent} does not exist (write -${absent} for a file that may be missing)`,
    ]);
  });

  it('says which names are not settings of this release, and a bad value names its file and line', () => {
    const dir = folder();
    const path = write(join(dir, 'site.env'), 'DEA_NO_SUCH_SETTING=1\nPORT=eighty\n');
    expect(problemsOf(() => loadConfigWithFile({ DEA_SETTINGS_FILES: path }))).toEqual([
      `PORT="eighty" (${path} line 2): must be integer`,
    ]);
    write(path, 'DEA_NO_SUCH_SETTING=1\nPORT=9000\n');
    expect(loadConfigWithFile({ DEA_SETTINGS_FILES: path }).settingsFiles.notices).toEqual([
      `DEA_NO_SUCH_SETTING (${path} line 1) is not a setting of this release (misspelt, or from another release): it has no effect`,
    ]);
  });

  it('reads a renamed setting under its new name and says so; a retired one is said and has no effect', () => {
    const dir = folder();
    const old = write(join(dir, 'old.env'), 'DEA_OLD_PORT=9100\nDEA_GONE=yes\n');
    const renamed = { DEA_OLD_PORT: { to: 'PORT', release: '2027.1.0' } };
    const retired = { DEA_GONE: { release: '2027.1.0', instead: 'nothing replaces it' } };
    const files = readSettingsFiles(old, known, renamed, retired);
    expect(files.values).toEqual({ PORT: '9100' });
    expect(files.notices).toEqual([
      `DEA_OLD_PORT (${old} line 1) is called PORT since release 2027.1.0: its value is used as PORT; rename it in that file`,
      `DEA_GONE (${old} line 2) was retired in release 2027.1.0 and has no effect: nothing replaces it`,
    ]);
    // The new name, set in any file, wins over the old one.
    const current = write(join(dir, 'current.env'), 'PORT=9200\n');
    expect(readSettingsFiles(`${current}:${old}`, known, renamed, retired).values.PORT).toBe('9200');
    expect(readSettingsFiles(`${old}:${current}`, known, renamed, retired).values.PORT).toBe('9200');
  });

  it('refuses a secret in a file others may read, naming the file, its line and its mode', () => {
    const dir = folder();
    const path = write(join(dir, 'db.env'), 'DATABASE_URL=postgres://dea:hunter2@db/dea\n', 0o644);
    expect(problemsOf(() => loadConfigWithFile({ DEA_SETTINGS_FILES: path }))).toEqual([
      `DATABASE_URL (${path} line 1): the settings file ${path} may be read by others than its owner (mode 0644): refused, as ssh refuses such a key; run chmod 600 ${path}, or give it the service's group (chgrp dea; chmod 640)`,
    ]);
    // Without the password, the address is no secret.
    write(path, 'DATABASE_URL=postgres://db/dea\n', 0o644);
    expect(loadConfigWithFile({ DEA_SETTINGS_FILES: path }).databaseUrl).toBe('postgres://db/dea');
  });

  it('is not itself a setting a settings file may set', () => {
    const dir = folder();
    const path = write(join(dir, 'loop.env'), `DEA_SETTINGS_FILES=${dir}\n`);
    expect(loadConfigWithFile({ DEA_SETTINGS_FILES: path }).settingsFiles.notices).toEqual([
      `DEA_SETTINGS_FILES (${path} line 1) is not a setting of this release (misspelt, or from another release): it has no effect`,
    ]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'stops, naming the file, its mode and owner and who reads it, on a file the service may not read',
    () => {
      const dir = folder();
      chmodSync(dir, 0o755);
      const path = write(join(dir, 'private.env'), 'PORT=9000\n', 0o600);
      chownSync(path, 0, 0);
      // The module and what it imports as one JavaScript file nobody may read.
      const module = join(dir, 'settings-files.mjs');
      buildSync({
        entryPoints: [join(import.meta.dirname, 'settings-files.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: module,
        logLevel: 'silent',
      });
      chmodSync(module, 0o644);
      const asNobody = runAsNobody(
        `import { readSettingsFiles } from ${JSON.stringify(module)};
         process.stdout.write(JSON.stringify(readSettingsFiles(${JSON.stringify(path)}, () => true).problems));`,
        dir,
      );
      expect(asNobody.status).toBe(0);
      const nobody = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim();
      expect(JSON.parse(asNobody.stdout)).toEqual([
        `cannot read the settings file ${path} (EACCES, mode 0600, owner 0:0) as nobody (uid ${nobody}): give it the service's group and let the group read it (chgrp dea ${path}; chmod 640 ${path})`,
      ]);
    },
  );
});
