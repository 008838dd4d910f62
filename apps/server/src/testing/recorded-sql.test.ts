import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, inject, it, vi } from 'vitest';
import { recordPostgresQueries, recordSqlitePrepares, recordSqliteRuns } from './recorded-sql.js';

/** Concurrent tests record at once, and files of one worker share `pg` and better-sqlite3. */
describe('recordings of the statements sent', () => {
  it('gives each of two open recordings every statement, and one’s stop leaves the other recording', () => {
    const database = new SqliteDatabase(':memory:');
    try {
      const first = recordSqliteRuns();
      const second = recordSqliteRuns();
      database.prepare('select 1 as one').get();
      first.stop();
      database.prepare('select 2 as two').get();
      second.stop();
      database.prepare('select 3 as three').get();
      expect(first.runs).toEqual(['select 1 as one']);
      expect(second.runs).toEqual(['select 1 as one', 'select 2 as two']);
    } finally {
      database.close();
    }
  });

  it('wraps a method once however many recordings open, so none calls itself without end', () => {
    const database = new SqliteDatabase(':memory:');
    try {
      recordSqlitePrepares().stop();
      const prepare = (): unknown =>
        Object.getOwnPropertyDescriptor(SqliteDatabase.prototype, 'prepare')?.value as unknown;
      const wrapped: unknown = prepare();
      const recordings = Array.from({ length: 50 }, () => recordSqlitePrepares());
      expect(prepare()).toBe(wrapped);
      database.prepare('select 4');
      for (const recording of recordings) {
        recording.stop();
        expect(recording.sources).toEqual(['select 4']);
      }
    } finally {
      database.close();
    }
  });

  it('keeps recording through a spy of the same method and vi.restoreAllMocks', () => {
    const database = new SqliteDatabase(':memory:');
    const recording = recordSqlitePrepares();
    try {
      const spy = vi.spyOn(SqliteDatabase.prototype, 'prepare');
      database.prepare('select 5');
      expect(spy).toHaveBeenCalledTimes(1);
      vi.restoreAllMocks();
      database.prepare('select 6');
      expect(recording.sources).toEqual(['select 5', 'select 6']);
    } finally {
      recording.stop();
      database.close();
    }
  });

  it('records the statements of every pg client, plain and named, into each open recording', async () => {
    const client = new pg.Client({ connectionString: inject('postgresUrl') });
    await client.connect();
    try {
      const [first, second] = [recordPostgresQueries(), recordPostgresQueries()];
      try {
        await Promise.all([
          client.query('select $1::int as n', [1]),
          client.query({ name: 'recorded-sql-test', text: 'select $1::int + 1 as n', values: [2] }),
        ]);
      } finally {
        first.stop();
        second.stop();
      }
      const expected = [
        { name: undefined, text: 'select $1::int as n', values: [1] },
        { name: 'recorded-sql-test', text: 'select $1::int + 1 as n', values: [2] },
      ];
      expect(first.queries).toEqual(expected);
      expect(second.queries).toEqual(expected);
    } finally {
      await client.end();
    }
  });
});
