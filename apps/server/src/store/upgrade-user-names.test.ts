import { usernameOrThrow } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run.js';
import { newId } from '../crypto/ids.js';
import { dumpStore } from '../testing/store-dump.js';
import { STORE_KINDS } from '../testing/stores.js';
import { MIGRATION_NAMES } from './migrations/index.js';
import { openStore } from './open-store.js';
import { emptyStores, NOW, SECRET } from './upgrade-fixture.js';

const emptyStore = emptyStores();

describe.each(STORE_KINDS)('user names take their canonical form on a %s store (migration 0014)', (kind) => {
  const BEFORE = '0013-issue-code-generic-plan';
  const userRow = (username: string) => ({
    id: newId(),
    username,
    password_hash: 'scrypt$stored',
    full_name: `Person ${username}`,
    locale: 'en',
    disabled: 0,
    created_at: NOW,
    last_login_at: null,
    current_login_at: null,
    time_zone: null,
    source: 'local',
    external_id: null,
  });
  const cli = (target: { databaseUrl: string | undefined; dataDir: string }) => {
    const out: string[] = [];
    const env = { DATABASE_URL: target.databaseUrl, DEA_DATA_DIR: target.dataDir, DEA_SECRET: SECRET };
    const run = (...argv: string[]) =>
      runCli(argv, { env, out: (line) => out.push(line), err: (line) => out.push(line) });
    return { out, run };
  };

  it('rewrites every user and console account name in its one spelling; look-ups by any spelling find them', async () => {
    const target = await emptyStore(kind);
    try {
      await target.migrateTo(BEFORE);
      await target.insert('users', [userRow('LAlice'), userRow('Ｂob'), userRow('carol')]);
      await target.insert('console_accounts', [
        {
          id: newId(),
          username: 'ADA',
          display_name: 'Ada',
          role: 'admin',
          password_hash: 'scrypt$stored',
          disabled: 0,
          created_at: NOW,
        },
      ]);
      const { out, run } = cli(target);
      expect(await run('migrate', '--dry-run')).toBe(0);
      expect(await run('migrate')).toBe(0);
      expect(out.pop()).toMatch(/^Applied 0014-canonical-user-names[,;] /);
      const after = await dumpStore({ ...target });
      expect((after.users ?? []).map((row) => row.username).sort()).toEqual(['bob', 'carol', 'lalice']);
      expect((after.console_accounts ?? []).map((row) => row.username)).toEqual(['ada']);
      const upgraded = await openStore({ ...target, schema: 'require-current' });
      try {
        expect(await upgraded.users.findByUsername(usernameOrThrow('ＬＡＬＩＣＥ'))).toMatchObject({
          fullName: 'Person LAlice',
        });
        expect(await upgraded.console.findAccountByUsername(usernameOrThrow('Ada'))).toMatchObject({
          displayName: 'Ada',
        });
      } finally {
        await upgraded.close();
      }
    } finally {
      await target.drop();
    }
  });

  it('never merges two people: names that fold together or are not allowed stop it, listed by --dry-run, and nothing changes', async () => {
    const target = await emptyStore(kind);
    try {
      await target.migrateTo(BEFORE);
      await target.insert('users', [
        userRow('Dave'),
        userRow('dave'),
        userRow('ＤＡＶＥ'),
        userRow('\u{1D41E}ve'),
        userRow('Fine'),
      ]);
      const before = await dumpStore({ ...target });
      const { out, run } = cli(target);
      expect(await run('migrate', '--dry-run')).toBe(1);
      const report = out.join('\n');
      expect(report).toContain('dea migrate would apply: 0014-canonical-user-names');
      expect(report).toMatch(
        /users "Dave" \(id \S+\), "dave" \(id \S+\), "ＤＡＶＥ" \(id \S+\) are one name once folded \("dave"\): they are not merged/,
      );
      expect(report).toMatch(
        /user "\u{1D41E}ve" \(id \S+\): the user name may not contain "\u{1D41E}" \(U\+1D41E\)/u,
      );
      expect(await dumpStore({ ...target })).toEqual(before);

      out.length = 0;
      expect(await run('migrate')).toBe(1);
      expect(out.join('\n')).toMatch(
        /store migration 0014-canonical-user-names failed: 2 user names cannot take the canonical form/,
      );
      expect(await dumpStore({ ...target })).toEqual(before);
    } finally {
      await target.drop();
    }
  });
});

describe.each(STORE_KINDS)(
  "SCIM's names as given and a user without a language on a %s store (migration 0038)",
  (kind) => {
    const MIGRATION = '0038-scim-attributes-as-given';
    const BEFORE = MIGRATION_NAMES[MIGRATION_NAMES.indexOf(MIGRATION) - 1] ?? '';
    const userRow = (username: string, source: string, name: Record<string, string | null> = {}) => ({
      id: newId(),
      username,
      password_hash: '!',
      full_name: `Person ${username}`,
      locale: 'de',
      disabled: 0,
      created_at: NOW,
      last_login_at: null,
      current_login_at: null,
      time_zone: null,
      source,
      external_id: source === 'local' ? null : `ext-${username}`,
      given_name: null,
      family_name: null,
      ...name,
    });

    it('keeps what SCIM users were answered as their displayName and name.formatted; a language may then be none', async () => {
      const target = await emptyStore(kind);
      try {
        await target.migrateTo(BEFORE);
        const both = userRow('both', 'scim', { given_name: 'Ada', family_name: 'Lovelace' });
        const family = userRow('family', 'scim', { family_name: 'Lovelace' });
        const unnamed = userRow('unnamed', 'scim');
        const local = userRow('local', 'local', { given_name: 'Lo', family_name: 'Cal' });
        await target.insert('users', [both, family, unnamed, local]);
        await target.insert('channels', [
          { id: newId(), user_id: both.id, key: 'email', address: 'ada@example.org', created_at: NOW },
        ]);
        await target.migrateTo(MIGRATION);
        const upgraded = await openStore({ ...target, schema: 'require-current' });
        try {
          const read = async (row: { id: string }) => upgraded.users.findById(row.id);
          expect(await read(both)).toMatchObject({
            fullName: 'Person both',
            displayName: 'Person both',
            formattedName: 'Ada Lovelace',
            locale: 'de',
          });
          expect(await read(family)).toMatchObject({
            displayName: 'Person family',
            formattedName: 'Lovelace',
          });
          expect(await read(unnamed)).toMatchObject({ displayName: 'Person unnamed', formattedName: null });
          expect(await read(local)).toMatchObject({ displayName: null, formattedName: null, locale: 'de' });
          // The user's rows stay theirs (the embedded store's column was made anew under its keys).
          expect(await upgraded.channels.listOfUser(both.id)).toMatchObject([{ address: 'ada@example.org' }]);
          expect(await upgraded.users.update(both.id, { locale: null })).toBe(true);
          expect((await read(both))?.locale).toBeNull();
          const id = newId();
          await upgraded.users.create({
            id,
            username: usernameOrThrow('new'),
            passwordHash: '!',
            fullName: 'New',
            locale: null,
            createdAt: NOW,
          });
          expect(await upgraded.users.findById(id)).toMatchObject({ locale: null, displayName: null });
        } finally {
          await upgraded.close();
        }
      } finally {
        await target.drop();
      }
    });
  },
);
