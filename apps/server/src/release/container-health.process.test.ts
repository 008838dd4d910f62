import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, spawnServerProcess } from '../testing/processes.js';
import { REPOSITORY } from '../testing/release.js';

const CONTAINERFILE = readFileSync(join(REPOSITORY, 'packaging/container/Containerfile'), 'utf8');
const folder = mkdtempSync(join(tmpdir(), 'dea-container-health-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The health check's command (exec form), with the management address the image sets. */
function healthCommand(): string[] {
  const instruction = /^HEALTHCHECK .*?CMD (\[.*\])$/m.exec(CONTAINERFILE.replace(/\\\n\s*/g, ''))?.[1];
  return JSON.parse(instruction ?? '[]') as string[];
}

describe('the container image', () => {
  it('publishes the page and the management port, and labels the release', () => {
    expect(CONTAINERFILE).toMatch(/^EXPOSE 8080 9000$/m);
    expect(CONTAINERFILE).toMatch(/DEA_MANAGEMENT_PORT=9000/);
    expect(CONTAINERFILE).toMatch(/^ARG VERSION$/m);
    expect(CONTAINERFILE).toMatch(/org\.opencontainers\.image\.version="\$\{VERSION\}"/);
    expect(readFileSync(join(REPOSITORY, 'scripts/release-container.sh'), 'utf8')).toContain(
      '--build-arg "VERSION=$version"',
    );
  });

  it("runs a health check that passes while the management port's /healthz answers, and fails when it does not", async () => {
    const [program, ...args] = healthCommand();
    expect(program).toBe('/usr/bin/node');
    const server = await spawnServerProcess({
      DEA_DATA_DIR: folder,
      DEA_MANAGEMENT_PORT: '0',
      DEA_LOG_LEVEL: 'info',
    }).running;
    const management = /"managementUrl":"http:\/\/([^"]+)"/.exec(server.output())?.[1] ?? '';
    expect(management).toMatch(/^127\.0\.0\.1:\d+$/);
    // The image's command, with the port this test's server took instead of the image's 9000.
    const asked = args.map((arg) => arg.replace('127.0.0.1:9000', management));
    expect(asked.join(' ')).not.toBe(args.join(' '));
    expect(spawnSync(process.execPath, asked).status).toBe(0);
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(spawnSync(process.execPath, asked).status).toBe(1);
  }, 60_000);
});
