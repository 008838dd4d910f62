import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isStoreUnavailable, messageOf, unavailableReason } from './store-error.js';

const failure = (code: string, message = `failed (${code})`) => Object.assign(new Error(message), { code });

describe('an unavailable store', () => {
  it('is told by the codes of a store that cannot take the request now, and by nothing else', () => {
    for (const code of [
      '08006', // connection failure
      '57P01', // terminated by an administrator
      '57P03', // cannot connect now (starting up)
      '57014', // statement timeout
      '55P03', // lock timeout
      '53300', // too many connections
      '53100', // disk full
      '25006', // read-only: a standby after a failover
      '40001', // serialization failure
      '40P01', // deadlock detected
      'ECONNREFUSED',
      'SQLITE_BUSY',
      'SQLITE_FULL',
      'SQLITE_IOERR_WRITE',
    ])
      expect(isStoreUnavailable(failure(code)), code).toBe(true);
    for (const code of ['23505', '42P01', '28P01', '22P02', 'SQLITE_CONSTRAINT_UNIQUE', ''])
      expect(isStoreUnavailable(failure(code)), code).toBe(false);
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStoreUnavailable('08006')).toBe(false);
  });

  it('names a full disk and where it is in the log message, on either store', () => {
    expect(unavailableReason(failure('SQLITE_FULL'), '/var/lib/dea')).toMatch(
      /disk is full .*DEA_DATA_DIR=\/var\/lib\/dea/,
    );
    expect(unavailableReason(failure('53100'), '/var/lib/dea')).toMatch(
      /disk is full under PostgreSQL.*DATABASE_URL/,
    );
    expect(unavailableReason(failure('57014'), '/var/lib/dea')).toBe('store unavailable');
  });

  it("reads an error by its fields: one of another realm, and better-sqlite3's, are no instanceof Error", () => {
    const elsewhere: unknown = runInNewContext("new Error('Connection terminated unexpectedly')");
    expect(elsewhere instanceof Error).toBe(false);
    expect(isStoreUnavailable(elsewhere)).toBe(true);
    const database = new Database(':memory:');
    let sqlite: unknown;
    try {
      database.prepare('select name from kysely_migration').all();
    } catch (error) {
      sqlite = error;
    } finally {
      database.close();
    }
    expect(messageOf(sqlite)).toBe('no such table: kysely_migration');
    expect(messageOf({ message: 42 })).toBeUndefined();
    expect(messageOf(undefined)).toBeUndefined();
  });
});
