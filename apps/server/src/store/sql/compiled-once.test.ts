import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../database.js';
import { compiledOnce } from './compiled-once.js';
import type { Db } from './db.js';

let db: Db;

beforeEach(async () => {
  db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });
  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('meta')
    .values([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
      { key: 'c', value: '3' },
    ])
    .execute();
});

afterEach(async () => {
  await db.destroy();
});

describe('a query compiled once', () => {
  it('runs with the values of each call, in the places the SQL uses them, beside fixed ones', async () => {
    const between = compiledOnce(db, (values: { low: string; high: string }) =>
      db
        .selectFrom('meta')
        .select('key')
        .where('key', '>=', values.low)
        .where('value', '!=', 'never')
        .where('key', '<=', values.high)
        .orderBy('key'),
    );
    expect((await between.run(db, { low: 'a', high: 'b' })).rows).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect((await between.run(db, { low: 'b', high: 'c' })).rows).toEqual([{ key: 'b' }, { key: 'c' }]);
    expect((await between.run(db, { low: 'c', high: 'a' })).rows).toEqual([]);
  });

  it('takes a value used twice from one name, and writes inside a transaction', async () => {
    const setBoth = compiledOnce(db, (values: { value: string; key: string }) =>
      db
        .updateTable('meta')
        .set({ value: values.value })
        .where((eb) => eb.or([eb('key', '=', values.key), eb('value', '=', values.key)])),
    );
    await db.transaction().execute(async (trx) => {
      const result = await setBoth.run(trx, { value: 'x', key: 'c' });
      expect(result.numAffectedRows).toBe(1n);
    });
    expect(await db.selectFrom('meta').selectAll().orderBy('key').execute()).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
      { key: 'c', value: 'x' },
    ]);
  });
});
