import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedConnection, PAGE_CACHE_KIB } from './open-store.js';
import { WAL_BACKSTOP_PAGES } from './wal-checkpoints.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function connection() {
  const folder = mkdtempSync(join(tmpdir(), 'dea-connection-'));
  folders.push(folder);
  return embeddedConnection(join(folder, 'dea.sqlite'));
}

describe('a connection to the embedded store', () => {
  it('keeps up to 64 MiB of the store’s pages in memory, not SQLite’s 2 MiB', () => {
    const database = connection();
    try {
      expect(PAGE_CACHE_KIB).toBe(65_536);
      // A negative cache_size is a size in KiB (a positive one would be a count of pages).
      expect(database.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    } finally {
      database.close();
    }
  });

  it('writes ahead to a log, commits without waiting for the disk, and keeps its foreign keys', () => {
    const database = connection();
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      // NORMAL: a commit survives the process; the log reaches the disk at each checkpoint.
      expect(database.pragma('synchronous', { simple: true })).toBe(1);
      expect(database.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(database.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_BACKSTOP_PAGES);
      expect(database.pragma('journal_size_limit', { simple: true })).toBe(64 * 1024 * 1024);
    } finally {
      database.close();
    }
  });
});
