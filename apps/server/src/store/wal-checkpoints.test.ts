import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointInBackground, WAL_BACKSTOP_PAGES } from './wal-checkpoints.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function storeFile(): string {
  const folder = mkdtempSync(join(tmpdir(), 'dea-wal-'));
  folders.push(folder);
  return join(folder, 'dea.sqlite');
}

describe('checkpoints of the embedded store on a thread of their own', () => {
  it('copy what the server wrote into the store file, while the server connection never does', async () => {
    const file = storeFile();
    const server = new SqliteDatabase(file);
    server.pragma('journal_mode = WAL');
    server.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
    server.exec('create table t (id integer primary key, text text)');
    const insert = server.prepare('insert into t (text) values (?)');
    for (let index = 0; index < 2000; index += 1) insert.run('x'.repeat(500));
    // About 250 pages sit in the log; the store file itself holds next to nothing yet.
    expect(statSync(file).size).toBeLessThan(100_000);
    const problems: string[] = [];
    const checkpoints = checkpointInBackground(file, 20, (problem) => problems.push(problem));
    try {
      await expect.poll(() => statSync(file).size).toBeGreaterThan(1_000_000);
      expect(server.prepare('select count(*) as n from t').get()).toEqual({ n: 2000 });
      expect(problems).toEqual([]);
    } finally {
      await checkpoints.close();
      server.close();
    }
  });

  it('reports a store it cannot open, naming the cause', async () => {
    const problems: string[] = [];
    const checkpoints = checkpointInBackground(join(storeFile(), 'missing', 'dea.sqlite'), 20, (problem) =>
      problems.push(problem),
    );
    await expect.poll(() => problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/checkpoint thread stopped: .*(directory|open)/i);
    await checkpoints.close();
  });
});
