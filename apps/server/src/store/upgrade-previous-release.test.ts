import { usernameOrThrow } from '@dea/contract';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../cli/run.js';
import { deriveKeys } from '../crypto/secret-keys.js';
import { keyedHash } from '../crypto/keyed-hash.js';
import { newId } from '../crypto/ids.js';
import { dumpStore } from '../testing/store-dump.js';
import { STORE_KINDS, type StoreKind } from '../testing/stores.js';
import { MIGRATION_NAMES, withReleases } from './migrations/index.js';
import { openStore } from './open-store.js';
import { emptyStores, NOW, SECRET } from './upgrade-fixture.js';

/** The last migration of the previous release (8.0): the schema its stores are at. */
const PREVIOUS_RELEASE_SCHEMA = '0008-active-codes-index';

const emptyStore = emptyStores();

/**
 * A store of the kind as the previous release left it (users, their channels, codes hashed with
 * the secret's key, one partly used, sessions and audit entries), its rows as they were then, and
 * the command line over it.
 */
async function previousReleaseStore(kind: StoreKind) {
  const target = await emptyStore(kind);
  onTestFinished(() => target.drop());
  await target.migrateTo(PREVIOUS_RELEASE_SCHEMA);
  const old = await openStore({ ...target, schema: 'as-is' });
  const keys = deriveKeys(Buffer.from(SECRET, 'base64'));
  const userIds: string[] = [];
  const codeIds: string[] = [];
  for (let index = 0; index < 5; index += 1) {
    const id = newId();
    userIds.push(id);
    await old.users.create({
      id,
      username: usernameOrThrow(`user-${index}`),
      passwordHash: 'scrypt$stored',
      fullName: `User ${index}`,
      locale: 'de',
      createdAt: NOW,
    });
    // Written as the previous release's schema holds them (channels have an origin since 0027).
    await target.insert('channels', [
      { id: newId(), user_id: id, key: 'email', address: `user${index}@example.com`, created_at: NOW },
    ]);
    const codeId = newId();
    codeIds.push(codeId);
    // Written as the previous release's schema holds them (this version issues codes through
    // a function of migration 0011 on PostgreSQL).
    await target.insert('codes', [
      {
        id: codeId,
        user_id: id,
        code_hash: keyedHash(keys.codeHash, 'code', `CODE${index}`),
        created_at: NOW,
        expires_at: NOW + 3_600_000,
        uses_left: 2,
        last_used_at: null,
        invalidated_at: null,
        channel_type: null,
      },
    ]);
    // As the previous release wrote them (before the writer's stamp of migration 0035).
    await target.insert('audit_log', [
      {
        id: newId(),
        at: NOW,
        event: 'code.issued',
        user_id: id,
        actor: null,
        client_address: null,
        details: JSON.stringify({ index }),
      },
    ]);
    await old.sessions.create({ idHash: newId(), userId: id, createdAt: NOW, lastSeenAt: NOW });
  }
  expect(await old.codes.consume(codeIds[0] ?? '', NOW)).toBe(true);
  await old.close();
  const before = await dumpStore({ ...target });
  const env = {
    DATABASE_URL: target.databaseUrl,
    DEA_DATA_DIR: target.dataDir,
    DEA_SECRET: SECRET,
  };
  const out: string[] = [];
  const run = (...argv: string[]) =>
    runCli(argv, { env, out: (line) => out.push(line), err: (line) => out.push(line) });
  return { target, before, userIds, codeIds, out, run };
}

describe.each(STORE_KINDS)('upgrading a %s store made by the previous release', (kind) => {
  it('every other command refuses the old schema, naming what is pending', async () => {
    expect(MIGRATION_NAMES).toContain(PREVIOUS_RELEASE_SCHEMA);
    const { out, run } = await previousReleaseStore(kind);
    expect(await run('user', 'list')).toBe(1);
    expect(out.pop()).toContain(
      `pending: ${MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf(PREVIOUS_RELEASE_SCHEMA) + 1).join(', ')}`,
    );
  });

  it('dea migrate --dry-run names what it will apply and changes nothing', async () => {
    const { target, before, out, run } = await previousReleaseStore(kind);
    expect(await run('migrate', '--dry-run')).toBe(0);
    expect(out.pop()).toBe(
      `The schema is at ${PREVIOUS_RELEASE_SCHEMA}; dea migrate would apply: ${withReleases(MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf(PREVIOUS_RELEASE_SCHEMA) + 1))}.`,
    );
    expect(await dumpStore({ ...target })).toEqual(before);
  });

  it('dea migrate keeps every user, channel, code and audit entry, the columns it adds empty or derived', async () => {
    const { target, before, out, run } = await previousReleaseStore(kind);
    expect(await run('migrate')).toBe(0);
    expect(out.pop()).toMatch(new RegExp(`^Applied .*; the schema is at ${MIGRATION_NAMES.at(-1)}\\.$`));

    // Every row of the old tables is still there, unchanged.
    const after = await dumpStore({ ...target });
    for (const [table, rows] of Object.entries(before)) {
      if (table === 'kysely_migration') continue;
      // Audit entries gain columns for their place and chain value (0017-audit-chain); users
      // and groups the attributes SCIM keeps (0020-scim-attributes, 0021-scim-modified,
      // 0038-scim-attributes-as-given), all null;
      // audit entries what the reports count them by, generated from their details (0026-report-indexes);
      // channels who registered them (0027-channel-proofs: the source's, never proven by a person);
      // audit entries their writer's stamp (0035-audit-stamps).
      const added: Record<string, string[]> = {
        channels: ['origin', 'proven_at', 'registered_at'],
        audit_log: [
          'seq',
          'chain',
          'chain_key',
          'report_channel',
          'report_provider',
          'report_reason',
          'stamp',
        ],
        users: [
          'given_name',
          'family_name',
          'primary_email',
          'primary_phone',
          'updated_at',
          'display_name',
          'formatted_name',
        ],
        groups: ['external_id', 'created_by', 'created_at', 'updated_at'],
      };
      const kept = (after[table] ?? []).map((row) =>
        Object.fromEntries(Object.entries(row).filter(([column]) => !(added[table] ?? []).includes(column))),
      );
      for (const row of table === 'users' || table === 'groups' ? (after[table] ?? []) : [])
        for (const column of added[table] ?? []) expect(row[column], column).toBeNull();
      for (const row of table === 'channels' ? (after[table] ?? []) : [])
        expect([row.origin, row.proven_at, row.registered_at]).toEqual(['source', null, null]);
      expect(kept, table).toEqual(rows);
    }
    expect(after.users).toHaveLength(5);
    expect(after.channels).toHaveLength(5);
    expect(after.codes).toHaveLength(5);
    const issued = (after.audit_log ?? []).filter((row) => row.event === 'code.issued');
    expect(issued).toHaveLength(5);
    // Left unsealed by the previous release: marked so that the first seal takes them (0035-audit-stamps).
    for (const row of issued) expect(row.stamp).toBe('legacy');
    for (const row of issued)
      expect(row.report_channel).toBe(
        (JSON.parse(String(row.details)) as { channel?: string }).channel ?? null,
      );
  });

  it('the upgraded store serves what the previous release wrote: codes keep their uses, new ones come under the same limit', async () => {
    const { target, userIds, codeIds, run } = await previousReleaseStore(kind);
    expect(await run('migrate')).toBe(0);
    // Codes keep their uses, users sign in to their channels.
    const upgraded = await openStore({ ...target, schema: 'require-current' });
    try {
      const [first, second] = userIds;
      expect((await upgraded.codes.listActive(first ?? '', NOW)).map((code) => code.usesLeft)).toEqual([1]);
      expect((await upgraded.codes.listActive(second ?? '', NOW)).map((code) => code.usesLeft)).toEqual([2]);
      expect(await upgraded.codes.consume(codeIds[1] ?? '', NOW)).toBe(true);
      expect(await upgraded.channels.listOfUser(second ?? '')).toMatchObject([
        { key: 'email', address: 'user1@example.com' },
      ]);
      expect(await upgraded.users.findByUsername(usernameOrThrow('user-4'))).toMatchObject({
        fullName: 'User 4',
        locale: 'de',
      });
      expect(await upgraded.audit.list({ event: 'code.issued', limit: 10 })).toHaveLength(5);
      // New codes are issued beside the old ones, under the same limit of unused codes.
      const issue = (id: string) =>
        upgraded.codes.issue(
          {
            id,
            userId: second ?? '',
            codeHash: id,
            createdAt: NOW,
            expiresAt: NOW + 60_000,
            uses: 1,
            channelType: null,
          },
          2,
          { event: 'code.issued', userId: second ?? '' },
        );
      expect(await issue(newId())).toMatchObject({
        issued: true,
        channels: [{ key: 'email', address: 'user1@example.com' }],
      });
      expect(await issue(newId())).toEqual({ issued: false, reason: 'store-full' });
      expect(await upgraded.audit.list({ event: 'code.issued', limit: 10 })).toHaveLength(6);
    } finally {
      await upgraded.close();
    }
  });
});
