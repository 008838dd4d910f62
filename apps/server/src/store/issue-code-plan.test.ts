import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import {
  createTestDatabase,
  type PostgresCluster,
  startPostgresCluster,
} from '../testing/postgres-cluster.js';
import { STAMPED_ISSUE_CODE_SIGNATURE as ISSUE_CODE_SIGNATURE } from './migrations/0035-audit-stamps.js';
import { openStore } from './open-store.js';
import type { Store } from './store.js';

const USERS = 10;
/** Per user: enough expired codes that PostgreSQL's estimate for a generic plan is far off. */
const EXPIRED_PER_USER = 3_000;
const LIVE_PER_USER = 30;
const ISSUES = 60;
const POOL_SIZE = 2;

/**
 * A cluster of its own: it counts the plans of the statements inside functions
 * (pg_stat_statements, track all, track planning).
 */
let cluster: PostgresCluster;
let admin: pg.Client;
let userIds: string[];
let databaseUrl: string;
const NOW = Date.now();

beforeAll(async () => {
  cluster = await startPostgresCluster({
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'all',
    'pg_stat_statements.track_planning': 'on',
  });
  databaseUrl = (await createTestDatabase(cluster.url)).url;
  const store = await openStore({ dataDir: '.', databaseUrl });
  await store.close();
  admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query('create extension pg_stat_statements');
  userIds = Array.from({ length: USERS }, () => newId());
  await admin.query(
    `insert into users (id, username, password_hash, full_name, locale, created_at)
     select id, 'u-' || id, 'x', 'U', 'en', 0 from unnest($1::text[]) id`,
    [userIds],
  );
  // Codes made over the last hour, valid a minute: most have expired, the last minute's are live.
  const total = EXPIRED_PER_USER + LIVE_PER_USER;
  await admin.query(
    `insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left)
     select gen_random_uuid()::text, u, md5(g::text || u), c, c + 60000, 1
     from unnest($1::text[]) u,
          lateral (select g, $2::bigint - (3600000::bigint * ($3 - g) / $3) as c
                   from generate_series(1, $3::int) g) s`,
    [userIds, NOW, total],
  );
  await admin.query('analyze codes');
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await cluster?.stop();
});

/** Issues ISSUES codes through the store, in a pool of its own; the plans made for its insert. */
async function plansOfIssues(): Promise<{ calls: number; plans: number }> {
  await admin.query('select pg_stat_statements_reset()');
  const store: Store = await openStore({ dataDir: '.', databaseUrl, poolSize: POOL_SIZE });
  try {
    for (let index = 0; index < ISSUES; index += 1) {
      const userId = userIds[index % USERS]!;
      const at = NOW + index;
      const code = {
        id: newId(),
        userId,
        codeHash: `h-${index}`,
        createdAt: at,
        expiresAt: at + 60_000,
        uses: 1,
        channelType: null,
      };
      expect(await store.codes.issue(code, 100, { event: 'code.issued', userId })).toEqual({
        issued: true,
        channels: [],
      });
    }
  } finally {
    await store.close();
  }
  const { rows } = await admin.query<{ calls: string; plans: string }>(
    `select calls, plans from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database())
       and query like 'insert into codes%'`,
  );
  expect(rows).toHaveLength(1);
  return { calls: Number(rows[0]!.calls), plans: Number(rows[0]!.plans) };
}

describe('the plan of a code issue on PostgreSQL', () => {
  it('is made once per connection, whatever the statistics of the codes say', async () => {
    const { calls, plans } = await plansOfIssues();
    expect(calls).toBe(ISSUES);
    expect(plans).toBeLessThanOrEqual(POOL_SIZE);
  });

  it('would be made for every code on these statistics without the setting of migration 0013', async () => {
    // The data make per-call plans win: without the setting the test above could not fail.
    await admin.query(`alter function ${ISSUE_CODE_SIGNATURE} reset plan_cache_mode`);
    try {
      const { calls, plans } = await plansOfIssues();
      expect(calls).toBe(ISSUES);
      expect(plans).toBeGreaterThan(ISSUES - 10);
    } finally {
      await admin.query(`alter function ${ISSUE_CODE_SIGNATURE} set plan_cache_mode = force_generic_plan`);
    }
  });
});
