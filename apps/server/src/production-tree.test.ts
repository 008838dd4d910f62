import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { demoUserGetsCode } from './testing/demo-journey.js';

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A temporary folder on node_modules' filesystem, where its copy can be hard links: the run's
 * temporary folder is in memory where the machine allows (scripts/scratch-folder.mjs), so /var/tmp,
 * the disk's, when the repository is on its filesystem; else the temporary folder, and a copy.
 */
function folderBesideNodeModules(): { folder: string; hardLinks: boolean } {
  const device = statSync(join(REPOSITORY, 'node_modules')).dev;
  const base = [tmpdir(), '/var/tmp'].find((folder) => {
    try {
      return statSync(folder).dev === device;
    } catch {
      return false;
    }
  });
  return { folder: mkdtempSync(join(base ?? tmpdir(), 'dea-production-')), hardLinks: base !== undefined };
}

/**
 * What an operator deploys: the built checkout with its development dependencies pruned
 * (`npm run build`, then `npm prune --omit=dev`). It must start, sign in and issue a code, so a
 * runtime import of a development-only package (or an undeclared one) fails here, not in production.
 */
describe('a production tree', () => {
  const { folder, hardLinks } = folderBesideNodeModules();
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('starts after npm prune --omit=dev and serves a code', async () => {
    const tree = join(folder, 'tree');
    const files = spawnSync('git', ['ls-files', '-z'], { cwd: REPOSITORY, encoding: 'utf8' }).stdout.split(
      '\0',
    );
    for (const file of files.filter(Boolean)) cpSync(join(REPOSITORY, file), join(tree, file));
    for (const built of ['packages/contract/dist', 'apps/server/dist', 'apps/web/dist']) {
      cpSync(join(REPOSITORY, built), join(tree, built), { recursive: true });
    }
    // Hard links: a copy of node_modules in a moment, which the prune then thins out (a copy of
    // the files where no temporary folder is on its filesystem).
    expect(
      spawnSync('cp', [
        hardLinks ? '-al' : '-a',
        join(REPOSITORY, 'node_modules'),
        join(tree, 'node_modules'),
      ]).status,
    ).toBe(0);
    const pruned = spawnSync('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund', '--offline'], {
      cwd: tree,
      encoding: 'utf8',
    });
    expect(pruned.status, pruned.stderr).toBe(0);
    expect(spawnSync('test', ['-e', join(tree, 'node_modules', 'vitest')]).status).not.toBe(0);

    const child = spawn(process.execPath, ['apps/server/dist/server.js', '--demo'], {
      cwd: tree,
      env: {
        PATH: process.env.PATH ?? '',
        DEA_SHUTDOWN_DRAIN_SECONDS: '0',
        PORT: '0',
        HOST: '127.0.0.1',
        DEA_DATA_DIR: join(folder, 'data'),
        DEA_PASSWORD_HASH_COST: '10',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const base = await new Promise<string>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /running: (http:\/\/[^\s"]+)\/dea\//.exec(output);
          if (match?.[1]) resolve(match[1].replace('localhost', '127.0.0.1'));
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      expect((await demoUserGetsCode(base)).code).toMatch(/^[2-9A-Z]{10}$/);
      const page = await fetch(`${base}/dea/`);
      expect(page.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);
});
