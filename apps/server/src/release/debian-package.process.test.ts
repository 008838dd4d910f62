import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtEntry } from '../testing/processes.js';
import {
  envFileSettings,
  REPOSITORY,
  sharedRelease,
  TEST_RELEASE_ARGS,
  type Release,
} from '../testing/release.js';

const isRoot = process.getuid?.() === 0;
const hasApt = spawnSync('apt-get', ['--version']).status === 0;

/** A command as root; its output, or an error naming the command and what it said. */
function sh(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  const run = spawnSync(command, args, {
    encoding: 'utf8',
    cwd: options.cwd,
    // An operator's shell: none of the settings the test run may carry.
    env: {
      PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: '/root',
      DEBIAN_FRONTEND: 'noninteractive',
      ...options.env,
    },
  });
  if (run.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
  }
  return run.stdout;
}

const installedVersion = (): string =>
  spawnSync('dpkg-query', ['-W', '-f', '${db:Status-Status} ${Version}', 'dea'], { encoding: 'utf8' }).stdout;
const APT = ['-y', '-q', '-o', 'DPkg::Lock::Timeout=300', '-o', 'Dpkg::Options::=--force-confold'];

/** Removes whatever of the package this test left (a failure halfway included). */
function purgeAll(): void {
  if (installedVersion() !== '') spawnSync('apt-get', ['purge', ...APT, 'dea'], { encoding: 'utf8' });
  if (spawnSync('getent', ['passwd', 'dea']).status === 0) spawnSync('userdel', ['dea']);
  if (spawnSync('getent', ['group', 'dea']).status === 0) spawnSync('groupdel', ['dea']);
}

/**
 * The Debian package as an operator meets it (docs/operator/install.md, "Install from the package"): installed with
 * apt on this machine, the store made by `dea migrate`, the server started as the unit starts it
 * (no systemd runs here: as the user dea, with the unit's environment and /etc/dea/dea.env),
 * upgraded to a newer build that keeps the data, then purged. Needs root, apt and nodejs from a
 * package; it refuses to touch a machine where dea is installed already.
 */
describe.skipIf(!isRoot || !hasApt)('the Debian package on this machine', () => {
  const version = (JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string })
    .version;
  const newer = `${version}+upgrade1`;
  let first: Release;
  let second: Release;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    builtEntry('server');
    if (installedVersion() !== '') {
      throw new Error(
        `dea is installed on this machine (${installedVersion()}): this test installs and purges its own`,
      );
    }
    // The release itself (the run's shared build, which release.process.test.ts checks), then a
    // newer package to upgrade to: not compressed, the same package made without xz's or gzip's
    // work (dpkg installs any of them alike; 5 CPU-seconds where gzip took 10).
    [first, second] = await Promise.all([
      sharedRelease('release', TEST_RELEASE_ARGS),
      sharedRelease('upgrade', ['--only', 'deb', '--compression', 'none', '--version', newer]),
    ]);
  }, 900_000);

  afterAll(() => {
    server?.kill('SIGKILL');
    purgeAll();
  }, 300_000);

  it('installs with apt, runs from any folder as the unit would, upgrades keeping the data, and purges', async () => {
    sh('apt-get', ['install', ...APT, `./${first.deb}`], { cwd: first.out });
    expect(installedVersion()).toBe(`installed ${version}`);
    expect(sh('getent', ['passwd', 'dea'])).toMatch(
      /^dea:x:\d+:\d+:Emergency Access[^:]*:\/var\/lib\/dea:\/usr\/sbin\/nologin$/m,
    );
    const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);
    expect(mode('/var/lib/dea')).toBe('700');
    expect(mode('/etc/dea/dea.env')).toBe('640');
    // The secret is root's: the service reads it through its group and cannot change it.
    expect(mode('/etc/dea/secret')).toBe('440');
    expect(sh('stat', ['-c', '%U:%G', '/etc/dea/secret']).trim()).toBe('root:dea');
    // The installed unit (made from deploy/systemd/dea.service) is one systemd accepts as it is.
    const verify = spawnSync('systemd-analyze', ['verify', '/lib/systemd/system/dea.service'], {
      encoding: 'utf8',
    });
    expect(
      `${verify.stdout}${verify.stderr}`.split('\n').filter((line) => line.includes('dea.service')),
    ).toEqual([]);
    expect(verify.status).toBe(0);

    // dea from another folder, with a path relative to it: the store made, then users imported.
    const work = mkdtempSync(join(tmpdir(), 'dea-operator-'));
    chmodSync(work, 0o755);
    writeFileSync(join(work, 'people.csv'), 'username,fullName\nann.operator,Ann Operator\n', {
      mode: 0o644,
    });
    expect(sh('dea', ['migrate'], { cwd: work })).toMatch(
      /Made a new embedded store in \/var\/lib\/dea\.\nApplied /,
    );
    expect(sh('dea', ['user', 'import', 'people.csv'], { cwd: work })).toContain('1 created');
    expect(sh('dea', ['user', 'list'], { cwd: work })).toContain('ann.operator');
    expect(statSync('/var/lib/dea/dea.sqlite').uid).toBe(Number(sh('id', ['-u', 'dea']).trim()));

    // The server as ExecStart starts it: the unit's user, folder and environment, then the file.
    const unit = readFileSync('/lib/systemd/system/dea.service', 'utf8');
    const execStart = /^ExecStart=(.+)$/m.exec(unit)?.[1]?.split(' ') ?? [];
    expect(execStart).toEqual(['/usr/bin/node', '/usr/lib/dea/apps/server/dist/server.js']);
    const unitEnv = Object.fromEntries(
      (/^Environment=(.+)$/m.exec(unit)?.[1] ?? '')
        .split(' ')
        .map((pair) => pair.split('=') as [string, string]),
    );
    const settings = envFileSettings(readFileSync('/etc/dea/dea.env', 'utf8'));
    expect(settings).toMatchObject({ HOST: '127.0.0.1', DEA_MANAGEMENT_HOST: '127.0.0.1' });
    const [program = '', ...args] = execStart;
    server = spawn('setpriv', ['--reuid=dea', '--regid=dea', '--init-groups', '--', program, ...args], {
      cwd: /^WorkingDirectory=(.+)$/m.exec(unit)?.[1],
      // Free ports instead of the packaged 8080 and 9000, which another program here may hold.
      env: {
        PATH: '/usr/bin:/bin',
        ...unitEnv,
        ...settings,
        PORT: '0',
        DEA_MANAGEMENT_PORT: '0',
        DEA_SHUTDOWN_DRAIN_SECONDS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const running = new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const management = /"managementUrl":"(http:\/\/[^"]+)"/.exec(output)?.[1];
        if (management !== undefined && output.includes('Emergency Access is running')) resolve(management);
      };
      server?.stdout?.on('data', onData);
      server?.stderr?.on('data', onData);
      server?.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    });
    const management = await running;
    expect((await fetch(`${management}/readyz`)).status).toBe(200);
    const listening = [...output.matchAll(/Server listening at (\S+?)"/g)].map((match) => match[1]);
    expect(listening.length).toBeGreaterThan(0);
    for (const address of listening) expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const publicUrl = listening[0] ?? '';
    expect((await fetch(`${publicUrl}/dea/`)).status).toBe(200);
    const stopped = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    expect(await stopped).toBe(0);
    server = undefined;
    // Not a terminal: every line the server wrote is one JSON object, deprecations included.
    for (const line of output.split('\n').filter((each) => each.trim() !== '')) {
      expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    }

    // An upgrade keeps the settings an operator changed, the secret and the store.
    writeFileSync(
      '/etc/dea/dea.env',
      `${readFileSync('/etc/dea/dea.env', 'utf8')}# changed by the operator\n`,
    );
    const secret = readFileSync('/etc/dea/secret', 'utf8');
    sh('apt-get', ['install', ...APT, `./${second.deb}`], { cwd: second.out });
    expect(installedVersion()).toBe(`installed ${newer}`);
    expect(readFileSync('/etc/dea/dea.env', 'utf8')).toContain('# changed by the operator');
    expect(readFileSync('/etc/dea/secret', 'utf8')).toBe(secret);
    expect(sh('dea', ['migrate'], { cwd: work })).toContain('The schema is up to date');
    expect(sh('dea', ['user', 'list'], { cwd: work })).toContain('ann.operator');
    rmSync(work, { recursive: true, force: true });

    // Purge: the product, its settings, secret, store and user are gone.
    sh('apt-get', ['purge', ...APT, 'dea']);
    expect(installedVersion()).not.toMatch(/^installed/);
    for (const path of [
      '/usr/lib/dea',
      '/usr/bin/dea',
      '/etc/dea',
      '/var/lib/dea',
      '/lib/systemd/system/dea.service',
    ]) {
      expect(existsSync(path), path).toBe(false);
    }
    expect(spawnSync('getent', ['passwd', 'dea']).status).not.toBe(0);
    expect(spawnSync('getent', ['group', 'dea']).status).not.toBe(0);
  }, 600_000);
});
