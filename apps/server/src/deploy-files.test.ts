import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const UNIT = join(ROOT, 'deploy/systemd/dea.service');

/** The values of a key of the unit file, in order. */
function unitValues(key: string): string[] {
  return readFileSync(UNIT, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));
}

describe('the systemd unit (deploy/systemd/dea.service)', () => {
  it('is accepted by systemd-analyze verify without a word about it', () => {
    const run = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
    expect(run.error, 'systemd-analyze is installed (Debian package systemd)').toBeUndefined();
    const aboutUnit = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.includes('dea.service'));
    expect(aboutUnit).toEqual([]);
    expect(run.status).toBe(0);
  });

  it('runs the built server as a dedicated user in a sandbox, restarting on failure', () => {
    expect(unitValues('User')).toEqual(['dea']);
    expect(unitValues('NoNewPrivileges')).toEqual(['yes']);
    expect(unitValues('ProtectSystem')).toEqual(['strict']);
    expect(unitValues('StateDirectory')).toEqual(['dea']);
    expect(unitValues('Restart')).toEqual(['on-failure']);
    expect(unitValues('Environment').join(' ')).toContain('DEA_DATA_DIR=/var/lib/dea');
    expect(unitValues('ExecReload')).toEqual(['/bin/kill -HUP $MAINPID']);
    // The program it starts is the one `npm run build` makes, at the path the install guide installs to.
    const [execStart = ''] = unitValues('ExecStart');
    const script = /\/opt\/dea\/(\S+)$/.exec(execStart)?.[1] ?? '';
    expect(script).toBe('apps/server/dist/server.js');
    expect(existsSync(join(ROOT, script)), 'npm run build made it').toBe(true);
    // The drain fits in the stop timeout.
    expect(Number(unitValues('TimeoutStopSec')[0])).toBeGreaterThan(5 + 30);
  });

  it('is what the install guide installs (docs/operator/install.md)', () => {
    const guide = readFileSync(join(ROOT, 'docs/operator/install.md'), 'utf8');
    expect(guide).toContain('deploy/systemd/dea.service /etc/systemd/system/dea.service');
    expect(guide).toContain('systemctl enable --now dea');
  });
});
