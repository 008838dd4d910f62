import { usernameOrThrow } from '@dea/contract';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { type RecordedQuery, recordPostgresQueries } from '../../testing/recorded-sql.js';
import { execRaw } from '../../testing/store-dump.js';
import { openTestStore } from '../../testing/stores.js';
import type { NewBatchUser } from './bulk-users.js';

const GROWN = 50_000;
/** The index found by source and id: only the users asked for are read. */
const BY_ID = /Index Cond: \(\(source = 'ldap'::text\) AND \(external_id = ANY/;

/** A statement's plan on PostgreSQL, with the values it ran with. */
async function planOf(databaseUrl: string, text: string, values: unknown): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${text}`, values as unknown[]);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}

async function changedSinceAnalysis(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ changed: string }>(
      "select n_mod_since_analyze as changed from pg_stat_user_tables where relname = 'users'",
    );
    return Number(rows[0]?.changed ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL plans a batch's read of many ids from its statistics of the column; a bulk write (a
 * first sync, an import) outgrows them, and the plan read the whole table for every batch
 * (store/sql/planner-statistics.ts).
 */
describe('PostgreSQL statistics of the tables a bulk write grows', () => {
  // The store's clock of when it last asked (performance.now), moved by the test.
  afterEach(() => {
    vi.useRealTimers();
  });
  it('are renewed when a batch read finds a table grown by half, so the read finds its users by index; asked at most every 2 s', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const own = await openTestStore('postgres');
    const databaseUrl = own.databaseUrl as string;
    try {
      // Autovacuum left out of it: only the store renews the statistics here.
      for (const table of ['users', 'channels', 'user_groups'])
        await execRaw(own, `alter table ${table} set (autovacuum_enabled = false)`);
      await execRaw(own, 'analyze users');
      const users: NewBatchUser[] = Array.from({ length: GROWN }, (_, index) => ({
        id: newId(),
        username: usernameOrThrow(`grown${index}`),
        passwordHash: '!',
        fullName: `Grown ${index}`,
        locale: 'en',
        createdAt: 1_000,
        source: 'ldap',
        externalId: `grown-${index}`,
        disabled: false,
        updatedAt: null,
      }));
      await own.store.transaction((store) =>
        store.bulkUsers.createMany({ users, channels: [], memberships: [], audit: [] }, 1_000),
      );
      const wanted = Array.from({ length: 200 }, (_, index) => `grown-${index * 7}`);
      const read = async () => {
        const recording = recordPostgresQueries();
        const known = await own.store.bulkUsers.known('ldap', wanted).finally(recording.stop);
        expect(known.size).toBe(wanted.length);
        return recording.queries;
      };
      const usersRead = (queries: RecordedQuery[]) =>
        queries.find(({ text }) => /^select \* from "users" where "source"/.test(text));

      // PostgreSQL counts a transaction's rows once its connection is idle (within a second).
      await expect
        .poll(() => changedSinceAnalysis(databaseUrl), { timeout: 10_000, interval: 100 })
        .toBeGreaterThanOrEqual(GROWN);

      const first = await read();
      expect(first.filter(({ text }) => /^analyze /.test(text)).map(({ text }) => text)).toEqual([
        'analyze "users"',
      ]);
      const statement = usersRead(first);
      expect(statement).toBeDefined();
      // After: the table analysed (its count of rows changed since starts again; autovacuum is off),
      // and a plan that reads only the ids asked.
      await expect
        .poll(() => changedSinceAnalysis(databaseUrl), { timeout: 10_000, interval: 100 })
        .toBeLessThan(GROWN);
      const plan = await planOf(databaseUrl, statement?.text ?? '', statement?.values);
      expect(plan).toMatch(BY_ID);

      // Within 2 s the store does not ask again.
      const second = await read();
      expect(second.filter(({ text }) => /pg_stat_user_tables|^analyze /.test(text))).toEqual([]);

      // After them it asks; the statistics are fresh, so nothing is analysed.
      vi.advanceTimersByTime(2_100);
      const third = await read();
      expect(third.filter(({ text }) => /pg_stat_user_tables/.test(text))).toHaveLength(1);
      expect(third.filter(({ text }) => /^analyze /.test(text))).toEqual([]);
    } finally {
      await own.dispose();
    }
  });
});
