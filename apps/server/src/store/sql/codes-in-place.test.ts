import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import pg from 'pg';
import { describe, expect, vi } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { cutoffsAt } from '../../testing/purge-cutoffs.js';
import { recordPostgresQueries } from '../../testing/recorded-sql.js';
import { STORE_KINDS, TEST_AUDIT_STAMP_KEY } from '../../testing/stores.js';
import { openStore } from '../open-store.js';
import type { VerifyCall } from './codes.js';

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
const HOUR = 3_600_000;
/** Codes issued one after the other fill several pages of the table. */
const CODES = 300;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function verifyCall(userId: string, candidate: string, now: number): VerifyCall {
  return {
    userId,
    refusal: null,
    candidates: [candidate, candidate, candidate],
    keyCount: 1,
    defaultForm: 0,
    policyCategory: POLICY_CATEGORY_SELF_SERVICE,
    policyOf: () => ({ enabled: true, form: 0, compareAtLeast: 1 }),
    now,
    rule: { lockAfter: 10, lockMs: HOUR },
    audit: { userId, actor: userId, clientAddress: null },
  };
}

/**
 * On PostgreSQL a code's use rewrites no index entry (migration 0034): no index of the
 * codes names a column a use changes, and the table's pages keep room for the new versions, so
 * every use is a HOT update, even of codes issued one after the other and used together.
 */
describe.each(STORE_KINDS.filter((kind) => kind === 'postgres'))('a code’s use on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'no index of the codes names uses_left or last_used_at, and the codes’ pages keep room',
    async ({ testStore }) => {
      await withClient(testStore.databaseUrl!, async (client) => {
        const indexes = await client.query<{ indexname: string; indexdef: string }>(
          `select indexname, indexdef from pg_indexes where tablename = 'codes'`,
        );
        expect(indexes.rows.length).toBeGreaterThan(0);
        for (const { indexdef } of indexes.rows) expect(indexdef).not.toMatch(/uses_left|last_used_at/);
        const options = await client.query<{ reloptions: string[] | null }>(
          `select reloptions from pg_class where relname = 'codes'`,
        );
        expect(options.rows[0]?.reloptions).toContain('fillfactor=50');
        // An audit entry is written without its place: the unique index of places holds only the placed.
        const seq = await client.query<{ indexdef: string }>(
          `select indexdef from pg_indexes where indexname = 'audit_log_seq'`,
        );
        expect(seq.rows[0]?.indexdef).toMatch(/UNIQUE INDEX .*\(seq\) WHERE \(seq IS NOT NULL\)/);
      });
    },
  );

  storeTest(
    'finds a user’s code and uses it by their keys, in the kept generic plans, after statistics that found most codes spent',
    async ({ testStore }) => {
      await withClient(testStore.databaseUrl!, async (client) => {
        await client.query(
          `insert into users (id, username, password_hash, full_name, locale, created_at)
           select 'u' || n, 'u' || n, 'x', 'U', 'en', 0 from generate_series(1, 3000) n`,
        );
        // The statistics are taken while the codes there are spent (the purge has not run yet).
        await client.query(
          `insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left)
           select 'c' || n, 'u' || n, md5(n::text), $1::bigint, $1::bigint + $2::bigint, 0 from generate_series(1, 500) n`,
          [T0, HOUR],
        );
        await client.query('analyze codes');
        await client.query(
          `insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left)
           select 'c' || n, 'u' || n, md5(n::text), $1::bigint, $1::bigint + $2::bigint, 1 from generate_series(501, 3000) n`,
          [T0, HOUR],
        );
        // As dea_verify_code keeps them (migration 0019): generic plans, whatever the statistics.
        await client.query('set plan_cache_mode = force_generic_plan');
        await client.query(
          `prepare usable(text, bigint, text[]) as select c.id, c.channel_type from codes c
           where c.user_id = $1 and c.expires_at > $2 and c.uses_left > 0 and c.invalidated_at is null
             and c.code_hash = any($3) order by c.created_at limit 1`,
        );
        await client.query(
          `prepare use_one(text, bigint) as update codes set uses_left = uses_left - 1, last_used_at = $2
           where id = $1 and uses_left > 0 and expires_at > $2 and invalidated_at is null`,
        );
        const planOf = async (statement: string) =>
          (await client.query<{ 'QUERY PLAN': string }>(`explain ${statement}`)).rows
            .map((row) => row['QUERY PLAN'])
            .join('\n');
        const usable = await planOf(`execute usable('u2000', ${T0}, array['x'])`);
        expect(usable, usable).toMatch(/Index Scan using codes_user on codes/);
        const useOne = await planOf(`execute use_one('c2000', ${T0})`);
        expect(useOne, useOne).toMatch(/Index Scan using codes_pkey on codes/);
      });
    },
  );

  storeTest(
    'uses codes issued one after the other, verified in parallel, each once and each in place',
    async ({ testStore }) => {
      const { store } = testStore;
      const url = testStore.databaseUrl!;
      const userIds = Array.from({ length: CODES }, () => newId(T0));
      const groupId = newId(T0);
      await withClient(url, async (client) => {
        await client.query(`insert into groups (id, name, priority) values ($1, 'in-place', 1)`, [groupId]);
        await client.query(`insert into policies (group_id, category, options) values ($1, $2, $3)`, [
          groupId,
          POLICY_CATEGORY_SELF_SERVICE,
          JSON.stringify({ enableECode: true }),
        ]);
        await client.query(
          `insert into users (id, username, password_hash, full_name, locale, created_at)
           select id, 'u-' || id, 'x', 'U', 'en', 0 from unnest($1::text[]) id`,
          [userIds],
        );
        await client.query(
          `insert into user_groups (user_id, group_id) select id, $2 from unnest($1::text[]) id`,
          [userIds, groupId],
        );
      });
      const hashOf = (userId: string) => `h-${userId}`;
      for (const userId of userIds)
        expect(
          await store.codes.issue(
            {
              id: newId(T0),
              userId,
              codeHash: hashOf(userId),
              createdAt: T0,
              expiresAt: T0 + HOUR,
              uses: 1,
              channelType: null,
            },
            5,
            { event: 'code.issued', userId, actor: userId },
          ),
        ).toEqual({ issued: true, channels: [] });
      const updatesOfCodes = () =>
        withClient(url, async (client) => {
          const row = (
            await client.query<{ upd: string; hot: string }>(
              `select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'codes'`,
            )
          ).rows[0]!;
          return { updated: Number(row.upd), hot: Number(row.hot) };
        });
      const before = await updatesOfCodes();

      // The verifications through an instance of their own, closed after them: a backend reports
      // its statistics to pg_stat_user_tables as it ends, where a backend kept open holds them
      // back for up to 10 s after its last report (PostgreSQL 15).
      const verifier = await openStore({
        dataDir: testStore.dataDir,
        databaseUrl: url,
        auditStampKey: TEST_AUDIT_STAMP_KEY,
      });
      try {
        // All at once: the verifications of a turn are one statement, codes of one page used together.
        const answers = await Promise.all(
          userIds.map((userId) => verifier.codes.verify(verifyCall(userId, hashOf(userId), T0 + 1))),
        );
        expect(answers.filter((answer) => answer.outcome.used)).toHaveLength(CODES);
        const again = await Promise.all(
          userIds.map((userId) => verifier.codes.verify(verifyCall(userId, hashOf(userId), T0 + 2))),
        );
        expect(again.filter((answer) => answer.outcome.used)).toHaveLength(0);
      } finally {
        await verifier.close();
      }

      // The statistics reach pg_stat_user_tables once the backends have reported them.
      await vi.waitFor(
        async () => expect((await updatesOfCodes()).updated - before.updated).toBeGreaterThanOrEqual(CODES),
        { timeout: 60_000, interval: 250 },
      );
      const after = await updatesOfCodes();
      expect(after.hot - before.hot).toBe(after.updated - before.updated);

      // What read by the indexes that named uses_left still finds its rows by an index.
      expect(await store.codes.countActive(userIds[0]!, T0 + 3)).toBe(0);
      const revoked = {
        id: newId(T0),
        userId: userIds[1]!,
        codeHash: 'revoked',
        createdAt: T0 + 3,
        expiresAt: T0 + HOUR,
        uses: 1,
        channelType: null,
      };
      expect(await store.codes.issue(revoked, 5, { event: 'code.issued', userId: revoked.userId })).toEqual({
        issued: true,
        channels: [],
      });
      expect(await store.codes.invalidate(revoked.id, T0 + 4)).toBe(true);
      const recorded = recordPostgresQueries();
      try {
        await store.codes.listActive(userIds[0]!, T0 + 5);
        await store.codes.countActive(userIds[0]!, T0 + 5);
        expect(await store.retention.removeBatch('codes', cutoffsAt(T0 + 5), 2 * CODES)).toBe(CODES + 1);
      } finally {
        recorded.stop();
      }
      const statements = recorded.queries.filter((query) => /from "?codes"?/.test(query.text));
      expect(statements.length).toBeGreaterThanOrEqual(5);
      await withClient(url, async (client) => {
        await client.query('analyze codes');
        // Off, a sequential scan is still chosen where no index serves: every plan names an index.
        await client.query('set enable_seqscan = off');
        for (const query of statements) {
          const plan = (
            await client.query<{ 'QUERY PLAN': string }>(`explain ${query.text}`, query.values as unknown[])
          ).rows
            .map((row) => row['QUERY PLAN'])
            .join('\n');
          expect(plan, plan).not.toMatch(/Seq Scan on codes/);
        }
      });
    },
    120_000,
  );
});
