import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe } from 'vitest';
import { EMBEDDED_STORE_FILE } from '../store/open-store.js';
import { appTest } from '../testing/fixtures.js';
import { GROUP, PATCH, scimClient, USER } from '../testing/scim-client.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

/**
 * The database itself refuses to give a group of SCIM's back to the operators (a trigger, on
 * either store): the release's second change fails after its first was made in the same request.
 */
async function refuseReleases(t: TestApp): Promise<() => Promise<void>> {
  const { databaseUrl, dataDir } = t.testStore;
  if (databaseUrl === undefined) {
    const database = new SqliteDatabase(join(dataDir, EMBEDDED_STORE_FILE));
    database.pragma('busy_timeout = 5000');
    database.exec(`create trigger refuse_release before update of source on groups
      when old.source = 'scim' and new.source = 'local'
      begin select raise(abort, 'releases refused for this test'); end`);
    return async () => {
      database.exec('drop trigger refuse_release');
      database.close();
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create function refuse_release() returns trigger language plpgsql as $$
    begin raise exception 'releases refused for this test'; end $$`);
  await client.query(`create trigger refuse_release before update of source on groups for each row
    when (old.source = 'scim' and new.source = 'local') execute function refuse_release()`);
  return async () => {
    await client.query('drop trigger refuse_release on groups');
    await client.query('drop function refuse_release()');
    await client.end();
  };
}

describe.each(STORE_KINDS)('Releasing a group over SCIM on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'is one transaction: when giving it back fails, its SCIM members are still in it',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { call } = await scimClient(t);

      const boss = await t.createUser();
      expect((await t.dea(['group', 'add', '--name', 'Staff', '--priority', '10'])).code).toBe(0);
      expect((await t.dea(['group', 'add-member', 'Staff', boss.username])).code).toBe(0);
      expect((await t.dea(['group', 'owner', 'Staff', 'scim'])).code).toBe(0);
      const staff = (await t.services.store.groups.findByName('Staff'))?.id as string;
      const member = (await call('POST', '/Users', { schemas: [USER], userName: 'member@example.org' })).body
        .id as string;
      expect(
        (
          await call('PATCH', `/Groups/${staff}`, {
            schemas: [PATCH],
            Operations: [{ op: 'add', path: 'members', value: [{ value: member }] }],
          })
        ).status,
      ).toBe(204);

      const allowReleases = await refuseReleases(t);
      try {
        const refused = await call('DELETE', `/Groups/${staff}`);
        expect(refused.status).toBe(500);
        // Nothing half-done: SCIM's member is still in it, it is still SCIM's, nothing audited.
        expect(await t.services.store.groups.listMembers(staff)).toEqual([boss.id, member].sort());
        expect(await t.services.store.groups.findByName('Staff')).toMatchObject({ source: 'scim' });
        expect(await t.services.store.audit.list({ event: 'group.member_removed' })).toEqual([]);
        expect(await t.services.store.audit.list({ event: 'group.owner_set', actor: 'scim:entra' })).toEqual(
          [],
        );
        expect((await call('GET', `/Groups/${staff}`)).body).toMatchObject({
          members: [{ value: member }],
        });
      } finally {
        await allowReleases();
      }

      // Once the store takes it, the same DELETE releases the group whole.
      expect((await call('DELETE', `/Groups/${staff}`)).status).toBe(204);
      expect(await t.services.store.groups.listMembers(staff)).toEqual([boss.id]);
      expect(await t.services.store.groups.findByName('Staff')).toMatchObject({ source: 'local' });
    },
    120_000,
  );
});

describe.runIf(STORE_KINDS.includes('postgres'))('A SCIM change that lost a race on PostgreSQL', () => {
  appTest.override('storeKind', 'postgres');

  appTest(
    'is tried once more from the start: answered as the second try went, changed once',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = { id: await scim.create({ schemas: [GROUP], displayName: 'Racing' }, '/Groups') };

      // The first rename finds its name taken meanwhile, as another writer's commit would make it
      // (unique_violation), once: a sequence is not rolled back with the transaction.
      const client = new pg.Client({ connectionString: t.testStore.databaseUrl });
      await client.connect();
      try {
        await client.query('create sequence lost_once');
        await client.query(`create function lose_once() returns trigger language plpgsql as $$
          begin
            if nextval('lost_once') = 1 then
              raise exception 'taken meanwhile (test)' using errcode = 'unique_violation';
            end if;
            return new;
          end $$`);
        await client.query(`create trigger lose_once before update of name on groups
          for each row execute function lose_once()`);
        const renamed = await scim.call('PATCH', `/Groups/${created.id}`, {
          schemas: [PATCH],
          Operations: [{ op: 'replace', path: 'displayName', value: 'Raced' }],
        });
        expect(renamed.status).toBe(204);
        expect(
          (await client.query<{ last_value: string }>('select last_value from lost_once')).rows[0],
        ).toEqual({
          last_value: '2',
        });
      } finally {
        await client.end();
      }
      expect((await t.services.store.groups.findByName('Raced'))?.id).toBe(created.id);
      expect(await t.services.store.audit.list({ event: 'group.renamed' })).toHaveLength(1);
    },
    120_000,
  );
});
