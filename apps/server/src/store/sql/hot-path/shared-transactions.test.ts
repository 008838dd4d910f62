import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../database.js';
import { ImmediateSqliteDialect } from '../../embedded-store-lock.js';
import type { Db } from '../db.js';
import { MAX_GATHERED as MAX_SHARED } from './by-turn.js';
import { sharingTransactions } from './shared-transactions.js';

let dir: string;
let db: Db;
let transactions: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dea-shared-'));
  const database = new SqliteDatabase(join(dir, 'store.sqlite'));
  database.pragma('journal_mode = WAL');
  db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }) });
  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  transactions = 0;
  const transaction = db.transaction.bind(db);
  vi.spyOn(db, 'transaction').mockImplementation(() => {
    transactions += 1;
    return transaction();
  });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A limit checked inside the work: at most `max` rows whose key starts with the prefix. */
function insertUnderLimit(max: number) {
  return sharingTransactions(db, async (trx, key: string) => {
    const { n } = await trx
      .selectFrom('meta')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key', 'like', `${key.split(':')[0] ?? ''}:%`)
      .executeTakeFirstOrThrow();
    if (Number(n) >= max) return 'full';
    await trx.insertInto('meta').values({ key, value: 'x' }).execute();
    return 'inserted';
  });
}

describe('transactions shared by the calls of one turn', () => {
  it('runs the calls of one turn in one transaction, each under the limit in turn', async () => {
    const insert = insertUnderLimit(5);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => insert(`u:${index}`)));
    expect(outcomes.filter((outcome) => outcome === 'inserted')).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome === 'full')).toHaveLength(15);
    expect(transactions).toBe(1);
    const { n } = await db
      .selectFrom('meta')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(5);
  });

  it(`shares a transaction among at most ${MAX_SHARED} calls`, async () => {
    const insert = insertUnderLimit(1000);
    const outcomes = await Promise.all(
      Array.from({ length: MAX_SHARED * 2 + 1 }, (_, index) => insert(`u:${index}`)),
    );
    expect(outcomes.every((outcome) => outcome === 'inserted')).toBe(true);
    expect(transactions).toBe(3);
  });

  it('runs each call alone when the shared transaction fails: one failure stays its own', async () => {
    await db.insertInto('meta').values({ key: 'u:taken', value: 'x' }).execute();
    const insert = insertUnderLimit(1000);
    const outcomes = await Promise.allSettled(['u:1', 'u:2', 'u:taken', 'u:3'].map((key) => insert(key)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    // The shared one, then one each.
    expect(transactions).toBe(5);
    const keys = await db.selectFrom('meta').select('key').orderBy('key').execute();
    expect(keys.map((row) => row.key)).toEqual(['u:1', 'u:2', 'u:3', 'u:taken']);
  });

  it('keeps nothing of a shared transaction that failed: each call is applied exactly once', async () => {
    let failNext = true;
    const insert = sharingTransactions(db, async (trx, key: string) => {
      await trx.insertInto('meta').values({ key, value: 'x' }).execute();
      if (key === 'u:2' && failNext) {
        failNext = false;
        throw new Error('the store went away for a moment');
      }
      return key;
    });
    expect(await Promise.all(['u:1', 'u:2', 'u:3'].map((key) => insert(key)))).toEqual(['u:1', 'u:2', 'u:3']);
    const rows = await sql<{ key: string }>`select key from meta order by key`.execute(db);
    expect(rows.rows.map((row) => row.key)).toEqual(['u:1', 'u:2', 'u:3']);
  });

  it('runs calls of later turns in transactions of their own', async () => {
    const insert = insertUnderLimit(1000);
    await insert('u:1');
    await insert('u:2');
    expect(transactions).toBe(2);
  });
});
