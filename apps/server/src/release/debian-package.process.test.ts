import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsPage } from '../testing/guide-pages.js';
import { builtEntry } from '../testing/processes.js';
import { REPOSITORY, sharedRelease, TEST_RELEASE_ARGS, type Release } from '../testing/release.js';

const isRoot = process.getuid?.() === 0;
const hasApt = spawnSync('apt-get', ['--version']).status === 0;

/** An operator's shell: none of the settings the test run may carry. */
const OPERATOR_SHELL = {
  PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  DEBIAN_FRONTEND: 'noninteractive',
};

/** A command as root; its output, or an error naming the command and what it said. */
function sh(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  const run = spawnSync(command, args, {
    encoding: 'utf8',
    cwd: options.cwd,
    env: { ...OPERATOR_SHELL, ...options.env },
  });
  if (run.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
  }
  return run.stdout;
}

const installedVersion = (): string =>
  spawnSync('dpkg-query', ['-W', '-f', '${db:Status-Status} ${Version}', 'dea'], { encoding: 'utf8' }).stdout;
const installedStatus = (): string =>
  spawnSync('dpkg-query', ['-W', '-f', '${Status} ${Version}', 'dea'], { encoding: 'utf8' }).stdout;
/** apt-get as configuration management runs it: -y, and no --force-conf* option. */
const APT = ['-y', '-q', '-o', 'DPkg::Lock::Timeout=300'];

/**
 * man-db's flag file: while it exists, every install or removal of a package that ships a manual
 * page ends with man-db's trigger reindexing the machine's pages (about 2 CPU-seconds, half of an
 * install of this package). That is the machine's index, not the package: the test takes the flag
 * away while it runs and puts it back after. `man dea` reads the page without the index.
 */
const MAN_DB_AUTO_UPDATE = '/var/lib/man-db/auto-update';
/** Where the flag waits meanwhile: a run stopped before it put the flag back left it here. */
const MAN_DB_PAUSED = `${MAN_DB_AUTO_UPDATE}.dea-test-paused`;

/** Puts man-db's flag back, if this test (or an earlier run of it that was stopped) took it away. */
function resumeManIndex(): void {
  if (existsSync(MAN_DB_PAUSED)) renameSync(MAN_DB_PAUSED, MAN_DB_AUTO_UPDATE);
}

/** Takes man-db's flag away until resumeManIndex, or the process's end, puts it back. */
function pauseManIndex(): void {
  resumeManIndex();
  if (!existsSync(MAN_DB_AUTO_UPDATE)) return;
  renameSync(MAN_DB_AUTO_UPDATE, MAN_DB_PAUSED);
  process.once('exit', resumeManIndex);
}

/** Removes whatever of the package this test left (a failure halfway included). */
function purgeAll(): void {
  if (installedVersion() !== '') spawnSync('apt-get', ['purge', ...APT, 'dea'], { encoding: 'utf8' });
  if (spawnSync('getent', ['passwd', 'dea']).status === 0) spawnSync('userdel', ['dea']);
  if (spawnSync('getent', ['group', 'dea']).status === 0) spawnSync('groupdel', ['dea']);
  spawnSync('sh', ['-c', 'echo "dea dea/purge-removes-secret boolean false" | debconf-set-selections']);
  rmSync('/etc/dea', { recursive: true, force: true });
}

/**
 * Another package made from a release's: `change` edits its unpacked tree (files and DEBIAN/),
 * then the version and the md5sums are set and dpkg-deb builds it, not compressed.
 */
function repacked(from: string, version: string, into: string, change: (tree: string) => void): string {
  const tree = mkdtempSync(join(into, 'tree-'));
  sh('dpkg-deb', ['-R', from, tree]);
  change(tree);
  const control = join(tree, 'DEBIAN/control');
  writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${version}`));
  const files = sh('find', ['.', '-type', 'f', '-not', '-path', './DEBIAN/*'], { cwd: tree })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.slice(2))
    .sort();
  writeFileSync(join(tree, 'DEBIAN/md5sums'), `${sh('md5sum', files, { cwd: tree }).trimEnd()}\n`);
  const deb = join(into, `dea_${version}_repacked.deb`);
  sh('dpkg-deb', ['--root-owner-group', '-Znone', '--build', tree, deb]);
  rmSync(tree, { recursive: true, force: true });
  return deb;
}

/** The Environment= settings of a unit (NAME=value pairs, space-separated, on every such line). */
function unitEnvironment(unit: string): Record<string, string> {
  return Object.fromEntries(
    [...unit.matchAll(/^Environment=(.+)$/gm)]
      .flatMap((match) => (match[1] ?? '').split(' '))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

/** The server as the installed unit starts it (its user, folder, environment), on free ports. */
async function startAsTheUnit(): Promise<{
  child: ChildProcess;
  output: () => string;
  management: string;
  url: string;
}> {
  const unit = readFileSync('/lib/systemd/system/dea.service', 'utf8');
  const execStart = /^ExecStart=(.+)$/m.exec(unit)?.[1]?.split(' ') ?? [];
  expect(execStart).toEqual(['/usr/bin/node', '/usr/lib/dea/apps/server/dist/server.js']);
  const [program = '', ...args] = execStart;
  const child = spawn('setpriv', ['--reuid=dea', '--regid=dea', '--init-groups', '--', program, ...args], {
    cwd: /^WorkingDirectory=(.+)$/m.exec(unit)?.[1],
    // Free ports instead of the packaged 8080 and 9000, which another program here may hold: the
    // environment wins over the settings files.
    env: {
      PATH: '/usr/bin:/bin',
      ...unitEnvironment(unit),
      PORT: '0',
      DEA_MANAGEMENT_PORT: '0',
      DEA_SHUTDOWN_DRAIN_SECONDS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const [management, url] = await new Promise<[string, string]>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const at = /"managementUrl":"(http:\/\/[^"]+)"/.exec(output)?.[1];
      const running = /is running: (http:\/\/[^\s"]+)/.exec(output)?.[1];
      if (at !== undefined && running !== undefined) resolve([at, running]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, management, url };
}

async function stop(child: ChildProcess): Promise<void> {
  const stopped = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  expect(await stopped).toBe(0);
}

/** The message of each JSON line a process wrote. */
const messagesOf = (output: string): string[] =>
  output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

/** The login application's path the page is told to go to without a session (DEA_LOGIN_PATH). */
async function loginPathOf(page: string): Promise<unknown> {
  const answer = await fetch(`${page}api/user/get`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await answer.json()) as { result?: { loginPath?: unknown } }).result?.loginPath;
}

const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);
const owner = (path: string) => sh('stat', ['-c', '%U:%G', path]).trim();

/**
 * The Debian package as an operator and a fleet's configuration management meet it
 * (docs/operator/install.md, "Install from the package"; docs/operator/upgrades.md): a release
 * that shipped its settings as a conffile, installed with apt and its settings changed there;
 * this release installed over it with `apt-get -y` and no --force-conf* option; a drop-in added
 * the way the guide says; a later release whose packaged settings changed installed the same way;
 * each time every value kept and the new version running; then removed and purged, leaving what
 * the guide says it leaves. No systemd runs here: the server is started as the unit starts it.
 * Needs root, apt and nodejs from a package; it refuses to touch a machine where dea is installed.
 * While it runs, man-db's flag file is renamed (MAN_DB_PAUSED), and put back after, at the
 * process's end at the latest, or at the start of the next run if the process was killed.
 */
describe.skipIf(!isRoot || !hasApt)('the Debian package on this machine', () => {
  const version = (JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string })
    .version;
  const newer = `${version}+upgrade1`;
  let first: Release;
  let later: string;
  let earlier: string;
  let server: ChildProcess | undefined;

  /** Whether this test got as far as owning the package: an operator's own dea is never purged. */
  let owned = false;

  beforeAll(async () => {
    builtEntry('server');
    if (installedVersion() !== '') {
      throw new Error(
        `dea is installed on this machine (${installedVersion()}): this test installs and purges its own`,
      );
    }
    owned = true;
    pauseManIndex();
    // The release itself (the run's shared build, which release.process.test.ts checks), then a
    // newer package to upgrade to: not compressed, the same package made without xz's or gzip's
    // work (dpkg installs any of them alike).
    const [release, upgrade] = await Promise.all([
      sharedRelease('release', TEST_RELEASE_ARGS),
      sharedRelease('upgrade', ['--only', 'deb', '--compression', 'none', '--version', newer]),
    ]);
    first = release;
    const work = mkdtempSync(join(upgrade.out, 'repacked-'));
    // The releases before this layout (8.0.20) shipped every setting in /etc/dea/dea.env, a
    // conffile: that release, remade from this one's files.
    earlier = repacked(join(first.out, first.deb), '8.0.20', work, (tree) => {
      mkdirSync(join(tree, 'etc/dea'), { recursive: true });
      writeFileSync(
        join(tree, 'etc/dea/dea.env'),
        `${readFileSync(join(tree, 'usr/share/doc/dea/examples/dea.env.example'), 'utf8')}\n${readFileSync(join(tree, 'usr/lib/dea/dea.env'), 'utf8')}`,
      );
      chmodSync(join(tree, 'etc/dea/dea.env'), 0o640);
      writeFileSync(join(tree, 'DEBIAN/conffiles'), '/etc/dea/dea.env\n');
    });
    // A later release that changed its packaged settings and ships another file under /usr/lib.
    later = repacked(join(upgrade.out, upgrade.deb), newer, work, (tree) => {
      const defaults = join(tree, 'usr/lib/dea/dea.env');
      writeFileSync(
        defaults,
        `${readFileSync(defaults, 'utf8').replace('DEA_MANAGEMENT_HOST=127.0.0.1', 'DEA_MANAGEMENT_HOST=127.0.0.2')}DEA_PUBLIC_METRICS=true\n`,
      );
    });
  }, 900_000);

  afterAll(() => {
    try {
      server?.kill('SIGKILL');
      if (owned) purgeAll();
    } finally {
      resumeManIndex();
    }
  }, 300_000);

  it('upgrades unattended across releases keeping every setting, runs each, and purges as the guide says', async () => {
    // An earlier release, its settings changed in its conffile as its guide said.
    sh('apt-get', ['install', ...APT, earlier]);
    expect(installedVersion()).toBe('installed 8.0.20');
    const operatorFile = readFileSync('/etc/dea/dea.env', 'utf8');
    writeFileSync(
      '/etc/dea/dea.env',
      operatorFile.replace('#DEA_LOGIN_PATH=/login/', 'DEA_LOGIN_PATH=/sso/login/'),
    );

    // This release over it: no question, no half-configured package, the value kept.
    sh('apt-get', ['install', ...APT, `./${first.deb}`], { cwd: first.out });
    expect(installedStatus()).toBe(`install ok installed ${version}`);
    expect(readFileSync('/etc/dea/dea.env', 'utf8')).toContain('\nDEA_LOGIN_PATH=/sso/login/\n');
    // The package's own lines of that file are the release's now, so later defaults apply.
    expect(readFileSync('/etc/dea/dea.env', 'utf8')).toContain(
      '\n#DEA_MANAGEMENT_HOST=127.0.0.1   (set by release 8.0.20; the release sets it in /usr/lib/dea/dea.env now)\n',
    );
    expect(sh('getent', ['passwd', 'dea'])).toMatch(
      /^dea:x:\d+:\d+:Emergency Access[^:]*:\/var\/lib\/dea:\/usr\/sbin\/nologin$/m,
    );
    expect(mode('/var/lib/dea')).toBe('700');
    expect([mode('/etc/dea'), owner('/etc/dea')]).toEqual(['750', 'root:dea']);
    expect([mode('/etc/dea/dea.env.d'), owner('/etc/dea/dea.env.d')]).toEqual(['750', 'root:dea']);
    // The secret is root's: the service reads it through its group and cannot change it.
    expect([mode('/etc/dea/secret'), owner('/etc/dea/secret')]).toEqual(['440', 'root:dea']);
    // The installed unit (made from deploy/systemd/dea.service) is one systemd accepts as it is.
    const verify = spawnSync('systemd-analyze', ['verify', '/lib/systemd/system/dea.service'], {
      encoding: 'utf8',
    });
    expect(
      `${verify.stdout}${verify.stderr}`.split('\n').filter((line) => line.includes('dea.service')),
    ).toEqual([]);
    expect(verify.status).toBe(0);
    expect(sh('dea', ['--version'])).toBe(`dea ${version}\n`);
    expect(sh('man', ['-P', 'cat', 'dea'], { env: { MANWIDTH: '100' } })).toContain('dea migrate');

    // A drop-in, as the guide says, with a name this release does not know; dea from another
    // folder, with a path relative to it: the store made, then users imported.
    writeFileSync('/etc/dea/dea.env.d/50-site.env', 'DEA_SESSION_IDLE_MINUTES=7\nDEA_RETIRED_KNOB=on\n', {
      mode: 0o640,
    });
    sh('chgrp', ['dea', '/etc/dea/dea.env.d/50-site.env']);
    const work = mkdtempSync(join(tmpdir(), 'dea-operator-'));
    chmodSync(work, 0o755);
    writeFileSync(join(work, 'people.csv'), 'username,fullName\nann.operator,Ann Operator\n', {
      mode: 0o644,
    });
    const migrated = spawnSync('dea', ['migrate'], { cwd: work, env: OPERATOR_SHELL, encoding: 'utf8' });
    expect(migrated.stdout, migrated.stderr).toMatch(
      /Made a new embedded store in \/var\/lib\/dea\.\nApplied 0001-initial.* \(release [^)]+\); the schema is at /,
    );
    expect(migrated.stderr).toContain(
      'dea: DEA_RETIRED_KNOB (/etc/dea/dea.env.d/50-site.env line 2) is not a setting of this release',
    );
    expect(sh('dea', ['user', 'import', 'people.csv'], { cwd: work })).toContain('1 created');
    expect(sh('dea', ['user', 'list'], { cwd: work })).toContain('ann.operator');
    expect(statSync('/var/lib/dea/dea.sqlite').uid).toBe(Number(sh('id', ['-u', 'dea']).trim()));

    // The upgrades guide's backup and restore of the package, run as written (no systemd runs
    // here: systemctl is a function that does nothing, and no server runs meanwhile).
    const backups = mkdtempSync(join(tmpdir(), 'dea-backups-'));
    const guideBlock = (start: string) => {
      const block = [...docsPage('operator/upgrades.md').matchAll(/```sh\n([\s\S]*?)```/g)]
        .map((match) => match[1] ?? '')
        .find((text) => text.startsWith(start));
      expect(block, `the upgrades guide's block "${start}"`).toBeDefined();
      return sh('bash', ['-c', `set -e; systemctl() { :; }\n${block}`], { cwd: backups });
    };
    guideBlock('# back up:');
    sh('dea', ['user', 'remove', 'ann.operator'], { cwd: work });
    expect(sh('dea', ['user', 'list'], { cwd: work })).not.toContain('ann.operator');
    guideBlock('# restore:');
    expect(sh('dea', ['user', 'list'], { cwd: work })).toContain('ann.operator');
    expect([mode('/var/lib/dea'), owner('/var/lib/dea')]).toEqual(['700', 'dea:dea']);
    rmSync(backups, { recursive: true, force: true });

    // A drop-in the service cannot read stops dea and the server, naming it and its mode.
    writeFileSync('/etc/dea/dea.env.d/60-private.env', 'DEA_LOG_LEVEL=warn\n', { mode: 0o600 });
    const refused = spawnSync('dea', ['user', 'list'], { cwd: work, env: OPERATOR_SHELL, encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      'cannot read the settings file /etc/dea/dea.env.d/60-private.env (EACCES, mode 0600, owner 0:0) as dea',
    );
    rmSync('/etc/dea/dea.env.d/60-private.env');

    // The server as the unit starts it: the packaged defaults, then the operator's values.
    const running = await startAsTheUnit();
    server = running.child;
    expect(running.management).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dea\/$/);
    expect(await (await fetch(`${running.management}/healthz`)).json()).toEqual({ status: 'ok', version });
    // The operator's value, from the file the earlier release shipped, is in force.
    expect(await loginPathOf(running.url)).toBe('/sso/login/');
    expect((await fetch(`${running.url.replace(/\/dea\/$/, '')}/metrics`)).status).toBe(404);
    const messages = messagesOf(running.output());
    expect(messages).toContain(
      'settings read from /usr/lib/dea/dea.env, /etc/dea/dea.env, /etc/dea/dea.env.d/50-site.env (DEA_SETTINGS_FILES)',
    );
    expect(
      messages.some((line) => line.startsWith('DEA_RETIRED_KNOB (/etc/dea/dea.env.d/50-site.env line 2)')),
    ).toBe(true);
    expect(messages.some((line) => line.startsWith(`Emergency Access ${version} is running: `))).toBe(true);
    await stop(server);
    server = undefined;

    // The later release, unattended: its changed defaults apply, the operator's values stay.
    const secret = readFileSync('/etc/dea/secret', 'utf8');
    sh('apt-get', ['install', ...APT, later]);
    expect(installedStatus()).toBe(`install ok installed ${newer}`);
    expect(sh('dea', ['--version'])).toBe(`dea ${newer}\n`);
    expect(readFileSync('/etc/dea/dea.env', 'utf8')).toContain('\nDEA_LOGIN_PATH=/sso/login/\n');
    expect(readFileSync('/etc/dea/dea.env.d/50-site.env', 'utf8')).toBe(
      'DEA_SESSION_IDLE_MINUTES=7\nDEA_RETIRED_KNOB=on\n',
    );
    expect(readFileSync('/etc/dea/secret', 'utf8')).toBe(secret);
    expect(sh('dea', ['migrate'], { cwd: work })).toContain('The schema is up to date');
    expect(sh('dea', ['user', 'list'], { cwd: work })).toContain('ann.operator');
    const upgraded = await startAsTheUnit();
    server = upgraded.child;
    // The release's new default (the management port on 127.0.0.2) and the operator's values together.
    expect(upgraded.management).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    expect(await (await fetch(`${upgraded.management}/healthz`)).json()).toEqual({
      status: 'ok',
      version: newer,
    });
    // DEA_PUBLIC_METRICS=true, the later release's new packaged setting, is in force.
    expect((await fetch(`${upgraded.url.replace(/\/dea\/$/, '')}/metrics`)).status).toBe(200);
    await stop(server);
    server = undefined;
    rmSync(work, { recursive: true, force: true });

    // Remove keeps everything but the program; purge keeps the secret (root's) and what the
    // operator added (root's), and removes the rest of the package and its user.
    sh('apt-get', ['remove', ...APT, 'dea']);
    for (const path of ['/etc/dea/dea.env', '/etc/dea/secret', '/var/lib/dea/dea.sqlite']) {
      expect(existsSync(path), path).toBe(true);
    }
    expect(existsSync('/usr/lib/dea')).toBe(false);
    const purged = spawnSync('apt-get', ['purge', ...APT, 'dea'], { encoding: 'utf8', env: OPERATOR_SHELL });
    expect(purged.status, purged.stderr).toBe(0);
    expect(`${purged.stdout}${purged.stderr}`).toContain('dea: kept /etc/dea/secret');
    expect(installedVersion()).not.toMatch(/^installed/);
    for (const path of [
      '/usr/lib/dea',
      '/usr/bin/dea',
      '/etc/dea/dea.env',
      '/var/lib/dea',
      '/lib/systemd/system/dea.service',
    ]) {
      expect(existsSync(path), path).toBe(false);
    }
    expect(spawnSync('getent', ['passwd', 'dea']).status).not.toBe(0);
    expect(spawnSync('getent', ['group', 'dea']).status).not.toBe(0);
    expect([mode('/etc/dea/secret'), owner('/etc/dea/secret')]).toEqual(['400', 'root:root']);
    expect(readFileSync('/etc/dea/secret', 'utf8')).toBe(secret);
    expect(owner('/etc/dea/dea.env.d/50-site.env')).toBe('root:root');
    // Nothing left owned by an id no user or group has.
    expect(sh('find', ['/etc/dea', '-nouser', '-o', '-nogroup'])).toBe('');
  }, 900_000);

  it('purges the secret too when the operator said so through debconf', () => {
    purgeAll();
    sh('apt-get', ['install', ...APT, `./${first.deb}`], { cwd: first.out });
    sh('sh', ['-c', 'echo "dea dea/purge-removes-secret boolean true" | debconf-set-selections']);
    sh('apt-get', ['purge', ...APT, 'dea']);
    expect(existsSync('/etc/dea')).toBe(false);
    expect(spawnSync('getent', ['passwd', 'dea']).status).not.toBe(0);
  }, 600_000);
});
