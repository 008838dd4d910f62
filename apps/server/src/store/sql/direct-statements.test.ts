import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { embeddedDb } from '../embedded-store-lock.js';
import { compiledOnce } from './compiled-once.js';
import type { Db } from './db.js';
import { inOpenTransaction } from './direct-statements.js';

let dir: string;
let file: string;
let db: Db;

function openDb(): Db {
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  return embeddedDb(database, file);
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dea-direct-'));
  file = join(dir, 'store.sqlite');
  db = openDb();
  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.insertInto('meta').values({ key: 'a', value: '1' }).execute();
});

afterEach(async () => {
  vi.restoreAllMocks();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function statementsOf(target: Db) {
  return {
    valueOf: compiledOnce(target, (values: { key: string }) =>
      target.selectFrom('meta').select('value').where('key', '=', values.key),
    ),
    insert: compiledOnce(target, (values: { key: string; value: string }) =>
      target.insertInto('meta').values({ key: values.key, value: values.value }),
    ),
    setValue: compiledOnce(target, (values: { key: string; value: string }) =>
      target.updateTable('meta').set({ value: values.value }).where('key', '=', values.key),
    ),
  };
}

describe("the embedded store's statements compiled once, run at once", () => {
  it("answers as Kysely's connection does, without its executor while nothing holds the connection", async () => {
    const { valueOf, insert, setValue } = statementsOf(db);
    const executor = vi.spyOn(db, 'executeQuery');
    expect((await valueOf.run(db, { key: 'a' })).rows).toEqual([{ value: '1' }]);
    const inserted = await insert.run(db, { key: 'b', value: '2' });
    expect(inserted).toEqual({ rows: [], numAffectedRows: 1n, insertId: 2n });
    expect((await setValue.run(db, { key: 'nobody', value: 'x' })).numAffectedRows).toBe(0n);
    expect(executor).not.toHaveBeenCalled();
    // Kysely's own answer to the same statements, for comparison.
    expect(await db.executeQuery(db.insertInto('meta').values({ key: 'c', value: '3' }).compile())).toEqual({
      rows: [],
      numAffectedRows: 1n,
      insertId: 3n,
    });
  });

  it("runs inside an open transaction of the store at once, and the transaction's rollback takes its writes back", async () => {
    const { valueOf, insert } = statementsOf(db);
    const failure = new Error('rolled back');
    await expect(
      db.transaction().execute((trx) =>
        inOpenTransaction(db, trx, async () => {
          const executor = vi.spyOn(trx, 'executeQuery');
          await insert.run(trx, { key: 'b', value: '2' });
          expect((await valueOf.run(trx, { key: 'b' })).rows).toEqual([{ value: '2' }]);
          expect(executor).not.toHaveBeenCalled();
          throw failure;
        }),
      ),
    ).rejects.toBe(failure);
    expect((await valueOf.run(db, { key: 'b' })).rows).toEqual([]);
  });

  it('leaves any other transaction to Kysely: one not marked open, and one used after it ended, which Kysely refuses', async () => {
    const { valueOf, setValue } = statementsOf(db);
    let ended: Db | undefined;
    await db.transaction().execute(async (trx) => {
      const executor = vi.spyOn(trx, 'executeQuery');
      expect((await valueOf.run(trx, { key: 'a' })).rows).toEqual([{ value: '1' }]);
      expect(executor).toHaveBeenCalledTimes(1);
    });
    await db.transaction().execute((trx) =>
      inOpenTransaction(db, trx, async () => {
        ended = trx;
        await setValue.run(trx, { key: 'a', value: 'kept' });
      }),
    );
    // Used late, while another transaction holds the connection: never inside that one.
    await db.transaction().execute((other) =>
      inOpenTransaction(db, other, async () => {
        const late = async () => setValue.run(ended!, { key: 'a', value: 'late' });
        await expect(late()).rejects.toThrow(/already committed/);
        expect((await valueOf.run(other, { key: 'a' })).rows).toEqual([{ value: 'kept' }]);
      }),
    );
    expect((await valueOf.run(db, { key: 'a' })).rows).toEqual([{ value: 'kept' }]);
  });

  it("never runs a statement of the store inside another's open transaction: it waits for the commit", async () => {
    const { valueOf, setValue } = statementsOf(db);
    let reading: Promise<unknown> | undefined;
    await db.transaction().execute((trx) =>
      inOpenTransaction(db, trx, async () => {
        await setValue.run(trx, { key: 'a', value: 'uncommitted' });
        const executor = vi.spyOn(db, 'executeQuery');
        reading = valueOf.run(db, { key: 'a' }).then((result) => result.rows);
        // The read went Kysely's way, behind the transaction's hold on the connection.
        expect(executor).toHaveBeenCalledTimes(1);
        await setValue.run(trx, { key: 'a', value: 'committed' });
      }),
    );
    expect(await reading).toEqual([{ value: 'committed' }]);
  });

  it("waits for another store's transaction on the same file of this process, never blocking on it", async () => {
    const other = openDb();
    try {
      const mine = statementsOf(db);
      const theirs = statementsOf(other);
      let written: Promise<unknown> | undefined;
      await other.transaction().execute(async (trx) => {
        await theirs.setValue.run(trx, { key: 'a', value: 'theirs' });
        // A write at once would wait for SQLite's lock with the thread the other transaction needs.
        let settled = false;
        written = mine.setValue.run(db, { key: 'a', value: 'mine' }).finally(() => {
          settled = true;
        });
        // Once every promise queued has run (a task later: the write's way is promises alone, no
        // I/O), the write waits: one that had run would have blocked the thread on SQLite's lock
        // (busy_timeout) and failed.
        await new Promise(setImmediate);
        expect(settled).toBe(false);
        expect((await theirs.valueOf.run(trx, { key: 'a' })).rows).toEqual([{ value: 'theirs' }]);
      });
      expect(await written).toMatchObject({ numAffectedRows: 1n });
      expect((await mine.valueOf.run(db, { key: 'a' })).rows).toEqual([{ value: 'mine' }]);
    } finally {
      await other.destroy();
    }
  });

  it("rejects with SQLite's error (a constraint), never throwing where the caller waits for a promise", async () => {
    const { insert } = statementsOf(db);
    const running = insert.run(db, { key: 'a', value: 'again' });
    expect(running).toBeInstanceOf(Promise);
    await expect(running).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
  });
});
