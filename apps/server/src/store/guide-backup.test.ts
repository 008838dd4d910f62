import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../cli/run.js';
import { createTestDatabase } from '../testing/postgres-cluster.js';
import { docsPage } from '../testing/guide-pages.js';

const SECRET = Buffer.alloc(32, 5).toString('base64');
const folder = mkdtempSync(join(tmpdir(), 'dea-guide-backup-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The upgrades guide's command that starts with `program`, exactly as written. */
function guideLine(program: string): string {
  const lines = [...docsPage('operator/upgrades.md').matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((match) => (match[1] ?? '').split('\n'))
    .filter((line) => line.startsWith(`${program} `));
  expect(lines, `the guide shows one ${program} line`).toHaveLength(1);
  return lines[0] ?? '';
}

async function dea(databaseUrl: string, ...argv: string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: {
      DATABASE_URL: databaseUrl,
      DEA_SECRET: SECRET,
      DEA_DATA_DIR: folder,
      DEA_PASSWORD_HASH_COST: '10',
    },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    readStdin: () => Promise.resolve('a long password\n'),
  });
  expect(code, err.join('\n')).toBe(0);
  return out.join('\n');
}

describe("the upgrades guide's PostgreSQL backup and restore", () => {
  it('run as written: pg_dump, then pg_restore over the changed database, exiting 0 with the backup back', async () => {
    const database = await createTestDatabase(inject('postgresUrl'));
    try {
      await dea(database.url, 'migrate');
      await dea(
        database.url,
        'user',
        'add',
        '--username',
        'before',
        '--full-name',
        'Before',
        '--password-stdin',
      );
      const env = { PATH: process.env.PATH ?? '', HOME: folder, DATABASE_URL: database.url };
      const dump = spawnSync('bash', ['-c', guideLine('pg_dump')], { cwd: folder, env, encoding: 'utf8' });
      expect(dump.status, dump.stderr).toBe(0);
      await dea(
        database.url,
        'user',
        'add',
        '--username',
        'after',
        '--full-name',
        'After',
        '--password-stdin',
      );
      expect(await dea(database.url, 'user', 'list')).toContain('after');
      const restore = spawnSync('bash', ['-c', guideLine('pg_restore')], {
        cwd: folder,
        env,
        encoding: 'utf8',
      });
      expect(restore.stderr).toBe('');
      expect(restore.status).toBe(0);
      const users = await dea(database.url, 'user', 'list');
      expect(users).toContain('before');
      expect(users).not.toContain('after');
      expect(await dea(database.url, 'migrate')).toContain('The schema is up to date');
    } finally {
      await database.drop();
    }
  }, 120_000);
});
