import { randomBytes } from 'node:crypto';
import { usernameOrThrow } from '@dea/contract';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RequestTurns } from '../domain/bulkheads.js';
import { identityOf } from '../testing/identity.js';
import { openTestStore, DOOR_STORE_KINDS } from '../testing/stores.js';
import { testConfig } from '../testing/test-app.js';
import { joinDomain, passwordOf } from './active-directory-fixture.js';
import type { DirectoryConfig } from './directory-settings.js';
import { DirectoryUsers } from './directory-users.js';
import { LdapDirectory } from './ldap-directory.js';

const domain = joinDomain();

// A domain controller shared by the run's files, on a machine that may be loaded: generous deadlines.
describe('the sync by change of Active Directory (Samba 4 as a domain controller)', {
  timeout: 180_000,
}, () => {
  // One directory for every store a door's test runs on (DOOR_STORE_KINDS, ADR 0052), each store
  // synced by a sync of its own at every step: the 1,600 people of the large group and the
  // controller's changes are made once.
  it(`the sync by change on ${DOOR_STORE_KINDS.join(' and ')}: reads only what changed since the controller's highestCommittedUSN, nests groups in memory, reads a large group's members by range, and disables a deleted user at the full pass`, {
    timeout: 600_000,
  }, async () => {
    // An OU of this test's own, the base DN of its sync: other tests' people are not in it.
    const tag = randomBytes(3).toString('hex');
    const ou = `OU=sync${tag}`;
    const base = `${ou},${domain.dc.baseDn}`;
    await domain.dc.admin.addOu(ou);
    const personDn = (name: string) => `CN=${name},${base}`;
    const groupDn = (name: string) => `CN=${name},${base}`;
    const addUser = (name: string) => domain.dc.admin.addUser(name, passwordOf(name), { ou });
    const addGroup = (name: string) => domain.dc.admin.addGroup(name, { ou });
    const [one, two, three] = [`one${tag}`, `two${tag}`, `three${tag}`];
    for (const name of [one, two, three]) await addUser(name);
    // top > middle > leafA; leafB on its own. top and leafB are mapped.
    const [top, middle, leafA, leafB, big] = ['top', 'mid', 'leafa', 'leafb', 'big'].map(
      (name) => `${name}${tag}`,
    ) as [string, string, string, string, string];
    for (const group of [top, middle, leafA, leafB]) await addGroup(group);
    await domain.dc.admin.addMembers(top, [middle]);
    await domain.dc.admin.addMembers(middle, [leafA]);
    await domain.dc.admin.addMembers(leafA, [one, two]);
    await domain.dc.admin.addMembers(leafB, [three]);
    // More members than one read of a group's member values gives (AD: 1,500), written by
    // ldbmodify 200 entries at a time: the run's other files share this controller, whose LDAP
    // service waits while ldbmodify holds the database in its transaction (one of all 1,600 took
    // 14 s on a loaded machine; over LDAP, one entry a request, the test took twice as long).
    const BIG = 1_600;
    const bigName = (index: number) => `b${tag}${String(index).padStart(4, '0')}`;
    const records = Array.from({ length: BIG }, (_, index) =>
      [
        `dn: ${personDn(bigName(index))}`,
        'changetype: add',
        'objectClass: user',
        `sAMAccountName: ${bigName(index)}`,
        `displayName: Big ${index}`,
        // A normal account without a password (none is needed to be synced).
        'userAccountControl: 544',
      ].join('\n'),
    );
    for (let start = 0; start < BIG; start += 200)
      await domain.dc.modify(`${records.slice(start, start + 200).join('\n\n')}\n`);
    await domain.dc.modify(
      `${[
        `dn: ${groupDn(big)}`,
        'changetype: add',
        'objectClass: group',
        `sAMAccountName: ${big}`,
        ...Array.from({ length: BIG }, (_, index) => `member: ${personDn(bigName(index))}`),
      ].join('\n')}\n`,
    );

    const config = testConfig({
      ...domain.settings,
      DEA_LDAP_BASE_DN: base,
      DEA_LDAP_GROUP_FILTER: '(member:1.2.840.113556.1.4.1941:={dn})',
      DEA_LDAP_NESTED_GROUPS: 'false',
      DEA_LDAP_GROUPS: JSON.stringify({
        [groupDn(top)]: 'Top',
        [groupDn(leafB)]: 'LeafB',
        [groupDn(big)]: 'Big',
      }),
      DEA_LDAP_FULL_SYNC_HOURS: '24',
      DEA_LDAP_PAGE_SIZE: '500',
    }).directory as DirectoryConfig;
    let now = Date.now();
    const clock = () => now;
    const stores = await Promise.all(
      DOOR_STORE_KINDS.map(async (kind) => {
        const testStore = await openTestStore(kind);
        onTestFinished(() => testStore.dispose());
        const { store } = testStore;
        const directory = new LdapDirectory(config, clock);
        onTestFinished(() => directory.close());
        const sync = new DirectoryUsers(directory, config, store, identityOf(store, clock).provisioning, {
          now: clock,
          batchSize: 200,
          turn: (stepMs) => new RequestTurns().turn(stepMs),
        });
        const groupsOf = async (name: string) => {
          const user = await store.users.findByUsername(usernameOrThrow(name.toLowerCase()));
          if (user === undefined) throw new Error(`no user ${name} on ${kind}`);
          return (await store.groups.listOfUser(user.id)).map((group) => group.name).sort();
        };
        return { kind, store, directory, sync, groupsOf };
      }),
    );

    for (const { kind, store, sync, groupsOf } of stores) {
      const first = await sync.syncAll();
      expect(first, kind).toMatchObject({
        full: true,
        fullReason: 'first sync',
        created: BIG + 3,
        failed: [],
      });
      expect(await groupsOf(one), kind).toEqual(['Top']);
      expect(await groupsOf(two), kind).toEqual(['Top']);
      expect(await groupsOf(three), kind).toEqual(['LeafB']);
      // Every member of the large group, past the first range of values.
      const bigGroup = await store.groups.findByName('Big');
      expect((await store.groups.listMembers(bigGroup?.id ?? '')).length, kind).toBe(BIG);
      expect(await groupsOf(bigName(BIG - 1)), kind).toEqual(['Big']);
    }

    for (const { kind, directory, sync } of stores) {
      directory.searches = 0;
      const quiet = await sync.syncAll();
      expect(quiet, kind).toMatchObject({ full: false, created: 0, updated: 0, disabled: 0, failed: [] });
      expect(quiet.read, kind).toBe(0);
      // The rootDSE and the controller's invocationId (2), every group (1), the large group's
      // members past the first range (1: Samba sends them all unless a range is asked for,
      // as Active Directory does by itself), the users changed since the mark (1).
      expect(directory.searches, kind).toBe(5);
    }

    // One user's display name, one moved from a nested group to another, one new user.
    await domain.dc.modify(
      `dn: ${personDn(one)}\nchangetype: modify\nreplace: displayName\ndisplayName: Renamed One\n`,
    );
    await domain.dc.admin.removeMembers(leafA, [two]);
    await domain.dc.admin.addMembers(leafB, [two]);
    const four = `four${tag}`;
    await addUser(four);
    for (const { kind, store, sync, groupsOf } of stores) {
      const changed = await sync.syncAll();
      expect(changed, kind).toMatchObject({ full: false, created: 1, updated: 2, disabled: 0, failed: [] });
      // The changed user, the new one and the moved one: nobody else is read.
      expect(changed.read, kind).toBe(3);
      expect((await store.users.findByUsername(usernameOrThrow(one)))?.fullName, kind).toBe('Renamed One');
      expect(await groupsOf(two), kind).toEqual(['LeafB']);
      expect(await groupsOf(four), kind).toEqual([]);
    }

    // A deletion shows in no change: the full pass, DEA_LDAP_FULL_SYNC_HOURS later, disables the user.
    await domain.dc.admin.deleteEntry(three);
    for (const { kind, store, sync } of stores) {
      const byChange = await sync.syncAll();
      expect(byChange, kind).toMatchObject({ full: false, disabled: 0 });
      expect((await store.users.findByUsername(usernameOrThrow(three)))?.disabled, kind).toBe(false);
    }
    now += 24 * 3_600_000;
    for (const { kind, store, sync, groupsOf } of stores) {
      const full = await sync.syncAll();
      expect(full, kind).toMatchObject({
        full: true,
        fullReason: 'DEA_LDAP_FULL_SYNC_HOURS passed',
        disabled: 1,
      });
      expect((await store.users.findByUsername(usernameOrThrow(three)))?.disabled, kind).toBe(true);
      expect((await store.users.findByUsername(usernameOrThrow(four)))?.disabled, kind).toBe(false);
      expect(await groupsOf(two), kind).toEqual(['LeafB']);
    }
  });
});
