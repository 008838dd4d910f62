import { identityOf } from '../testing/identity.js';
import { usernameOrThrow } from '@dea/contract';
import { Attribute, Change, type Client } from 'ldapts';
import { RequestTurns } from '../domain/bulkheads.js';
import { describe, expect, inject, onTestFinished } from 'vitest';
import type { Store } from '../store/store.js';
import { storeTest } from '../testing/fixtures.js';
import { createLdapTree, type LdapTree } from '../testing/ldap-tree.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { testConfig } from '../testing/test-app.js';
import type { DirectoryConfig } from './directory-settings.js';
import { DirectoryUsers } from './directory-users.js';
import { LdapDirectory } from './ldap-directory.js';
import { logSyncProblems } from './sync-report.js';
import { recordStatements } from '../testing/recorded-sql.js';

const USERS = 300;
/** Six leaf groups of 50 people, two middle groups of three leaves each, one top group of both. */
const LEAVES = 6;

const person = (index: number) => `bulk${String(index).padStart(3, '0')}`;

/** 300 people in groups nested three deep, beside the tree's own four. */
async function addBulk(
  tree: LdapTree,
): Promise<{ userDn: (index: number) => string; groupDn: (name: string) => string }> {
  // Named by employeeNumber, so that a test can take a user's uid away.
  const userDn = (index: number) => `employeeNumber=${index},ou=people,${tree.baseDn}`;
  const groupDn = (name: string) => `cn=${name},ou=groups,${tree.baseDn}`;
  const admin = await tree.admin();
  try {
    for (let index = 0; index < USERS; index += 1) {
      await admin.add(userDn(index), {
        objectClass: ['inetOrgPerson'],
        uid: person(index),
        employeeNumber: String(index),
        cn: `Bulk Person ${index}`,
        sn: `Person ${index}`,
        mail: `${person(index)}@dea.test`,
        preferredLanguage: index === 7 ? 'xx_YY' : 'de_AT',
      });
    }
    for (let leaf = 0; leaf < LEAVES; leaf += 1) {
      const members = Array.from({ length: USERS / LEAVES }, (_, at) => userDn(leaf * (USERS / LEAVES) + at));
      await admin.add(groupDn(`leaf${leaf}`), {
        objectClass: ['groupOfNames'],
        cn: `leaf${leaf}`,
        member: members,
      });
    }
    for (const middle of [0, 1])
      await admin.add(groupDn(`middle${middle}`), {
        objectClass: ['groupOfNames'],
        cn: `middle${middle}`,
        member: [0, 1, 2].map((at) => groupDn(`leaf${middle * 3 + at}`)),
      });
    await admin.add(groupDn('top'), {
      objectClass: ['groupOfUniqueNames'],
      cn: 'top',
      uniqueMember: [groupDn('middle0'), groupDn('middle1')],
    });
  } finally {
    await admin.unbind();
  }
  return { userDn, groupDn };
}

async function groupsOf(store: Store, name: string): Promise<string[]> {
  const user = await store.users.findByUsername(usernameOrThrow(name));
  if (user === undefined) throw new Error(`no user ${name}`);
  return (await store.groups.listOfUser(user.id)).map((group) => group.name).sort();
}

const replace = (type: string, values: string[]) =>
  new Change({ operation: 'replace', modification: new Attribute({ type, values }) });

describe.each(DOOR_STORE_KINDS)('the directory sync by change on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    `reads ${USERS} users and their nested groups in a few searches, then only what changed; a full pass catches a removal`,
    { timeout: 600_000 },
    async ({ testStore: { store } }) => {
      const tree = await createLdapTree(inject('ldap'));
      onTestFinished(() => tree.dispose());
      const { userDn, groupDn } = await addBulk(tree);
      const settings = {
        ...tree.settings,
        DEA_LDAP_ATTRIBUTES: '{"locale":"preferredLanguage"}',
        DEA_LDAP_GROUPS: JSON.stringify({
          [groupDn('top')]: 'Top',
          [groupDn('middle1')]: 'Middle1',
          [groupDn('leaf0')]: 'Leaf0',
          [groupDn('leaf5')]: 'Leaf5',
        }),
        DEA_LDAP_USER_FILTER: '(&(objectClass=inetOrgPerson)(!(employeeType=left)))',
        DEA_LDAP_PAGE_SIZE: '100',
        DEA_LDAP_FULL_SYNC_HOURS: '24',
        DEA_PROVISION_BATCH_SIZE: '40',
      };
      const config = testConfig(settings).directory as DirectoryConfig;
      let now = Date.now();
      const clock = () => now;
      const directory = new LdapDirectory(config, clock);
      const sync = new DirectoryUsers(directory, config, store, identityOf(store, clock).provisioning, {
        now: clock,
        batchSize: 40,
        turn: (stepMs) => new RequestTurns().turn(stepMs),
      });

      // First sync: a full pass. Groups are one paged search, users one paged search: no search per user.
      const first = await sync.syncAll();
      expect(first).toMatchObject({ full: true, fullReason: 'first sync', created: USERS + 4, failed: [] });
      expect(directory.searches).toBeLessThanOrEqual(3);
      expect(await groupsOf(store, person(0))).toEqual(['Leaf0', 'Top']);
      expect(await groupsOf(store, person(299))).toEqual(['Leaf5', 'Middle1', 'Top']);
      expect(await groupsOf(store, person(120))).toEqual(['Top']);
      // A locale the product knows is kept; xx_YY is reported and not stored.
      expect((await store.users.findByUsername(usernameOrThrow(person(1))))?.locale).toBe('de_AT');
      expect((await store.users.findByUsername(usernameOrThrow(person(7))))?.locale).toBe('en');
      expect(first.warnings).toContainEqual({
        username: person(7),
        warning: expect.stringMatching(/^locale: "xx_YY" is no language the product knows/),
      });

      // Nothing changed: the groups and the entries changed at or after the mark, nothing written.
      directory.searches = 0;
      const quiet = await sync.syncAll();
      expect(quiet).toMatchObject({ full: false, created: 0, updated: 0, disabled: 0, failed: [] });
      expect(directory.searches).toBeLessThanOrEqual(2);
      // entryCSN marks a change to the microsecond: at most the entry at the mark is read again.
      expect(quiet.read).toBeLessThanOrEqual(1);

      // One user renamed, one moved from leaf0 to leaf5, one removed, one without a user name.
      const admin: Client = await tree.admin();
      try {
        await admin.modify(userDn(10), replace('cn', ['Renamed Person']));
        await admin.modify(
          groupDn('leaf0'),
          new Change({
            operation: 'delete',
            modification: new Attribute({ type: 'member', values: [userDn(20)] }),
          }),
        );
        await admin.modify(
          groupDn('leaf5'),
          new Change({
            operation: 'add',
            modification: new Attribute({ type: 'member', values: [userDn(20)] }),
          }),
        );
        await admin.del(userDn(30));
        await admin.modify(
          userDn(40),
          new Change({ operation: 'delete', modification: new Attribute({ type: 'uid' }) }),
        );
      } finally {
        await admin.unbind();
      }
      directory.searches = 0;
      const changed = await sync.syncAll();
      expect(changed).toMatchObject({ full: false, created: 0, disabled: 0, failed: [] });
      // The renamed user, the moved one (found by its groups), and the last one read before (at the mark).
      expect(changed).toMatchObject({ updated: 2 });
      expect(changed.read).toBeLessThanOrEqual(3);
      expect((await store.users.findByUsername(usernameOrThrow(person(10))))?.fullName).toBe(
        'Renamed Person',
      );
      expect(await groupsOf(store, person(20))).toEqual(['Leaf5', 'Middle1', 'Top']);
      expect(changed.skipped).toEqual([
        { dn: userDn(40), reason: expect.stringContaining('no value for the user-name attribute uid') },
      ]);
      // Groups, changed users, every user's DN and id once (a group changed), the one moved user.
      expect(directory.searches).toBeLessThanOrEqual(4);
      // A sync by change cannot see a removal.
      expect((await store.users.findByUsername(usernameOrThrow(person(30))))?.disabled).toBe(false);

      // DEA_LDAP_FULL_SYNC_HOURS later: a full pass disables the removed user, and only them.
      now += 24 * 3_600_000;
      directory.searches = 0;
      const recording = recordStatements(kind);
      const full = await (async () => {
        try {
          return await sync.syncAll();
        } finally {
          recording.stop();
        }
      })();
      // The unchanged users compared a batch at a time: the statements grow with the batches
      // (DEA_PROVISION_BATCH_SIZE), not with the users (about a dozen each, read one by one): a
      // batch's transaction and its three reads of what the store has (no name asked of users it has).
      const batches = Math.ceil(USERS / 40);
      expect(recording.texts().length).toBeLessThanOrEqual(batches * 5 + 40);
      expect(full).toMatchObject({ full: true, fullReason: 'DEA_LDAP_FULL_SYNC_HOURS passed', disabled: 1 });
      expect(directory.searches).toBeLessThanOrEqual(3);
      expect((await store.users.findByUsername(usernameOrThrow(person(30))))?.disabled).toBe(true);
      // And out of the groups the directory gave them, in one audit entry, not one per group.
      expect(await groupsOf(store, person(30))).toEqual([]);
      const left = (await store.audit.list({ limit: 5000 })).filter(
        (entry) => entry.event === 'user.groups_left',
      );
      expect(left).toHaveLength(1);
      expect(left[0]).toMatchObject({
        actor: 'directory',
        details: {
          groups: expect.arrayContaining(['Leaf0', 'Top']),
          reason: 'not in source',
          source: 'ldap',
        },
      });
      // oxlint-disable-next-line no-unsafe-optional-chaining -- a missing entry fails the test
      expect((left[0]?.details as { groups: string[] }).groups).toHaveLength(2);
      // The user without a user name is reported, not disabled.
      expect((await store.users.findByUsername(usernameOrThrow(person(40))))?.disabled).toBe(false);
      expect(full.skipped).toHaveLength(1);

      // One that leaves the user filter and comes back (the same entry): out of the groups with
      // the full pass, back in them, enabled, once the directory has them again.
      const admin31 = await tree.admin();
      const employeeType = (operation: 'add' | 'delete') =>
        admin31.modify(
          userDn(31),
          new Change({ operation, modification: new Attribute({ type: 'employeeType', values: ['left'] }) }),
        );
      try {
        await employeeType('add');
        now += 24 * 3_600_000;
        expect(await sync.syncAll()).toMatchObject({ full: true, disabled: 1 });
        expect(await groupsOf(store, person(31))).toEqual([]);
        await employeeType('delete');
      } finally {
        await admin31.unbind();
      }
      expect(await sync.syncAll()).toMatchObject({ full: false, updated: 1, failed: [] });
      expect((await store.users.findByUsername(usernameOrThrow(person(31))))?.disabled).toBe(false);
      expect(await groupsOf(store, person(31))).toEqual(['Leaf0', 'Top']);

      // The log names each of them at warn, then counts the rest past the cap.
      const lines: { fields: Record<string, unknown>; message: string }[] = [];
      logSyncProblems({ warn: (fields, message) => lines.push({ fields, message }) }, changed, 1);
      expect(lines).toEqual([
        {
          fields: { dn: userDn(40), reason: expect.stringContaining('uid') },
          message: expect.stringContaining('left out'),
        },
      ]);
      lines.length = 0;
      logSyncProblems({ warn: (fields, message) => lines.push({ fields, message }) }, first, 0);
      expect(lines).toEqual([
        { fields: { more: 1 }, message: expect.stringContaining('DEA_LDAP_SYNC_LOG_USERS') },
      ]);
    },
  );
});
