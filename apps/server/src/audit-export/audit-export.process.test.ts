import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../testing/postgres-cluster.js';
import { exitOf, runDea, startServerProcess, type RunningServer } from '../testing/processes.js';
import { STORE_KINDS } from '../testing/stores.js';

const SECRET = Buffer.alloc(32, 7).toString('base64');

function events(file: string): { event: string; actor: string | null; seq: number }[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; actor: string | null; seq: number });
  } catch {
    return [];
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(STORE_KINDS)('dea beside a running server with DEA_AUDIT_FILE, on %s', (kind) => {
  it('a user added, changed and removed with dea reaches the file, also what dea wrote while the server was stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dea-audit-process-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'audit.jsonl');
    const env: Record<string, string> = {
      DEA_DATA_DIR: dir,
      DEA_SECRET: SECRET,
      DEA_AUDIT_FILE: file,
      DEA_PASSWORD_HASH_COST: '10',
    };
    if (kind === 'postgres') {
      const database = await createTestDatabase(inject('postgresUrl'));
      cleanups.push(() => database.drop());
      env.DATABASE_URL = database.url;
    }
    let server: RunningServer | undefined = await startServerProcess(env);
    const stop = async (): Promise<void> => {
      const running = server;
      server = undefined;
      if (running === undefined) return;
      running.child.kill('SIGTERM');
      await exitOf(running.child);
    };
    cleanups.push(stop);
    const added = await runDea(
      ['user', 'add', '--username', 'zoe', '--full-name', 'Zoe', '--password-stdin'],
      env,
      'correct horse battery',
    );
    expect(added).toMatchObject({ code: 0 });
    await expect
      .poll(() => events(file).some((entry) => entry.event === 'user.created'), { timeout: 20_000 })
      .toBe(true);
    expect(await runDea(['user', 'update', 'zoe', '--full-name', 'Zoe Z'], env)).toMatchObject({ code: 0 });
    await expect
      .poll(() => events(file).some((entry) => entry.event === 'user.updated'), { timeout: 20_000 })
      .toBe(true);

    await stop();
    expect(await runDea(['user', 'remove', 'zoe'], env)).toMatchObject({ code: 0 });
    server = await startServerProcess(env);
    await expect
      .poll(() => events(file).some((entry) => entry.event === 'user.removed'), { timeout: 20_000 })
      .toBe(true);
    const seqs = events(file).map((entry) => entry.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
    expect(
      events(file)
        .filter((entry) => entry.actor === 'cli')
        .map((entry) => entry.event),
    ).toEqual(['user.created', 'user.updated', 'user.removed']);
    expect(await runDea(['audit', 'verify'], env)).toMatchObject({ code: 0 });
  }, 120_000);
});
