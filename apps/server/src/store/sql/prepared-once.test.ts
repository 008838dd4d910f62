import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow } from '@dea/contract';
import { deriveKeys } from '../../crypto/secret-keys.js';
import { auditSealer, auditStampKeyOf, SEAL_BATCH } from '../../domain/audit/audit-trail.js';
import { recordSqlitePrepares } from '../../testing/recorded-sql.js';
import { openStore } from '../open-store.js';
import type { Store } from '../store.js';

/**
 * SQLite prepares a statement anew at every run, silently, when a bound value decides its plan:
 * a bound LIMIT, or a bound value compared where a partial index's condition has a literal (the
 * planner checks the index's condition against the value bound at that moment, so each new binding
 * expires the statement). On the hot calls that cost a third of tempPass/create's CPU under load
 * (`perf record` of the server under `npm run bench:load`). These statements must carry such constants as literals.
 */
const KEYS = deriveKeys(randomBytes(32));
let dataDir: string;
let store: Store;
let prepared: ReturnType<typeof recordSqlitePrepares>;

const USER = 'u-1';

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dea-prepared-'));
  store = await openStore({ dataDir, auditStampKey: auditStampKeyOf(KEYS) });
  await store.users.create({
    id: USER,
    username: usernameOrThrow('pat'),
    passwordHash: 'x',
    fullName: 'Pat',
    locale: 'en',
    createdAt: 1,
  });
  await store.groups.create({ id: 'g-1', name: 'Staff', priority: 0 });
  await store.groups.addMember('g-1', USER);
  await store.groups.setPolicy('g-1', POLICY_CATEGORY_SELF_SERVICE, { enableECode: true });
  await store.sessions.create({ idHash: 'h-1', userId: USER, createdAt: 1, lastSeenAt: 1 });
  prepared = recordSqlitePrepares();
});

afterEach(async () => {
  prepared.stop();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The columns that the conditions of the store's partial indexes name, by the index's table. */
async function partialIndexColumns(): Promise<Map<string, string[]>> {
  const database = new SqliteDatabase(join(dataDir, 'dea.sqlite'), { readonly: true });
  try {
    const rows = database
      .prepare(
        "select tbl_name as tableName, sql from sqlite_master where type = 'index' and sql like '% where %'",
      )
      .all() as { tableName: string; sql: string }[];
    const keywords = new Set(['and', 'or', 'not', 'is', 'null']);
    const byTable = new Map<string, string[]>();
    for (const { tableName, sql } of rows) {
      const condition = sql.slice(sql.toLowerCase().lastIndexOf(' where ') + 7);
      const words = (condition.match(/[a-z_]+/g) ?? []).filter((word) => !keywords.has(word));
      byTable.set(tableName, [...new Set([...(byTable.get(tableName) ?? []), ...words])]);
    }
    return byTable;
  } finally {
    database.close();
  }
}

/** The tables a statement reads or writes (FROM, JOIN, INTO, UPDATE). */
function tablesOf(source: string): string[] {
  return [...source.matchAll(/\b(?:from|join|into|update)\s+"?([a-z_]+)"?/gi)].map((match) => match[1] ?? '');
}

describe('the hot statements of the embedded store', () => {
  it('are prepared once: no bound LIMIT, no bound value against a partial index condition', async () => {
    const columnsByTable = await partialIndexColumns();
    expect(columnsByTable.get('codes')).toEqual(expect.arrayContaining(['uses_left', 'invalidated_at']));

    const now = 1000;
    await store.sessions.find('h-1');
    await store.groups.findPolicyOfUser(USER, POLICY_CATEGORY_SELF_SERVICE);
    const issued = await store.codes.issue(
      {
        id: 'c-1',
        userId: USER,
        codeHash: 'x',
        createdAt: now,
        expiresAt: now + 60_000,
        uses: 1,
        channelType: null,
      },
      10,
      { event: 'code.issued', userId: USER },
    );
    expect(issued).toEqual({ issued: true, channels: [] });
    await store.codes.listActive(USER, now);
    await store.codes.countActive(USER, now);
    await store.channels.listOfUser(USER);
    expect(await store.codes.consume('c-1', now)).toBe(true);
    const verified = await store.codes.verify({
      userId: USER,
      refusal: null,
      candidates: Array.from({ length: 6 }, () => 'no such hash'),
      keyCount: 1,
      defaultForm: 0,
      policyCategory: POLICY_CATEGORY_SELF_SERVICE,
      policyOf: () => ({ enabled: true, form: 0, compareAtLeast: 10 }),
      now,
      rule: { lockAfter: 10, lockMs: 60_000 },
      audit: { userId: USER, actor: 'test', clientAddress: null },
    });
    expect(verified.outcome).toEqual({ used: false, reason: 'no-usable-code' });
    // The audit trail's seal, which runs about every AUDIT_SEAL_GATHER_MS while entries are written:
    // asked here, so that its statements are checked in every run, not only when a round falls in.
    expect(await store.auditTrail.seal(auditSealer(KEYS), SEAL_BATCH, now)).toBeGreaterThan(0);

    const statements = prepared.sources.filter((source) => /^(select|insert|update|delete)\b/i.test(source));
    expect(statements.length).toBeGreaterThanOrEqual(7);
    for (const source of statements) {
      expect(source, source).not.toMatch(/\blimit\s+\?/i);
      const columns = tablesOf(source).flatMap((table) => columnsByTable.get(table) ?? []);
      for (const column of columns) {
        expect(source, source).not.toMatch(new RegExp(`"?${column}"?\\s*(?:[<>]=?|=|!=|<>)\\s*\\?`, 'i'));
      }
    }
  });
});
