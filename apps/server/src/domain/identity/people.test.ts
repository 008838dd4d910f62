import { addStoredUser } from '../../testing/identity.js';
import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import type { Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { openSecondInstance } from '../../testing/second-instance.js';
import { type AuditListener, observedStore } from '../../observability/observed-store.js';
import { Metrics } from '../../observability/metrics.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { People } from './people.js';
import { type ChangeBy, OwnershipRefused } from './user-ownership.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const BY_OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };

const addUser = (store: Store, username: string, source: UserSource = 'local') =>
  addStoredUser(store, username, T0, source);

const entriesOf = (store: Store, userId: string) => store.audit.list({ userId, limit: 1000 });

/** A detail no audit entry can hold (JSON has no BigInt): the entry's write fails, inside the change. */
const UNWRITABLE: ChangeBy = { door: 'local', actor: 'cli', details: { size: 1n } };

describe.each(STORE_KINDS)('the identity module on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    "a user may have no language, and SCIM's displayName and name.formatted as given or none, each change audited",
    async ({ testStore: { store }, expect }) => {
      const people = new People(store, () => T0, null);
      const BY_SCIM: ChangeBy = { door: 'scim', actor: 'scim:idp' };
      const { user } = await people.create(BY_SCIM, {
        username: 'ada@example.org',
        fullName: 'Ada L.',
        locale: null,
        externalId: 'ada-1',
        displayName: 'Ada L.',
        formattedName: 'Dr. Ada M. Lovelace, PhD',
      });
      expect(await store.users.findById(user.id)).toMatchObject({
        locale: null,
        displayName: 'Ada L.',
        formattedName: 'Dr. Ada M. Lovelace, PhD',
      });
      // Absent, as from every other door: English.
      expect((await people.create(BY_OPERATOR, { username: 'bob', fullName: 'Bob' })).user.locale).toBe('en');

      const given = await people.update(BY_SCIM, user.id, { locale: 'de' });
      expect(given).toMatchObject({ changed: ['locale'], user: { locale: 'de' } });
      const removed = await people.update(BY_SCIM, user.id, {
        fullName: 'Dr. Ada M. Lovelace, PhD',
        locale: null,
        displayName: null,
      });
      expect(removed.changed).toEqual(['fullName', 'locale', 'displayName']);
      expect(await store.users.findById(user.id)).toMatchObject({
        fullName: 'Dr. Ada M. Lovelace, PhD',
        locale: null,
        displayName: null,
        formattedName: 'Dr. Ada M. Lovelace, PhD',
      });
      expect((await people.update(BY_SCIM, user.id, { locale: null, displayName: null })).changed).toEqual(
        [],
      );
      expect(
        (await entriesOf(store, user.id))
          .filter((entry) => entry.event === 'user.updated')
          .map((entry) => entry.details),
      ).toEqual(
        expect.arrayContaining([{ fields: ['locale'] }, { fields: ['fullName', 'locale', 'displayName'] }]),
      );
      // They go with the full name: only its owner changes them.
      await expect(people.update(BY_OPERATOR, user.id, { displayName: 'Ada' })).rejects.toBeInstanceOf(
        OwnershipRefused,
      );
    },
  );

  storeTest(
    'each operation writes its change and exactly one audit entry, and answers what changed',
    async ({ testStore: { store }, expect }) => {
      const people = new People(store, () => T0, null);
      const { user } = await people.create(BY_OPERATOR, {
        username: 'Alice',
        fullName: ' Alice Example ',
        passwordHash: 'hash-1',
      });
      expect(user).toMatchObject({ username: 'alice', fullName: 'Alice Example', source: 'local' });
      await store.sessions.create({ idHash: 'a1', userId: user.id, createdAt: T0, lastSeenAt: T0 });
      const steps: [string, () => Promise<{ changed: string[]; sessionsEnded: number }>, object][] = [
        [
          'user.updated',
          () => people.update(BY_OPERATOR, user.id, { fullName: 'Alice B', locale: 'de' }),
          { changed: ['fullName', 'locale'] },
        ],
        ['user.password_set', () => people.setPassword(BY_OPERATOR, user.id, 'hash-2'), { sessionsEnded: 1 }],
        ['user.disabled', () => people.disable(BY_OPERATOR, user.id), { changed: ['disabled'] }],
        ['user.enabled', () => people.enable(BY_OPERATOR, user.id), { changed: ['disabled'] }],
        ['user.signed_out', () => people.endSessions(BY_OPERATOR, user.id), { sessionsEnded: 0 }],
        ['user.removed', () => people.remove(BY_OPERATOR, user.id), { changed: ['removal'] }],
      ];
      expect((await entriesOf(store, user.id)).map((entry) => entry.event)).toEqual(['user.created']);
      for (const [event, step, answer] of steps) {
        const before = await entriesOf(store, user.id);
        expect(await step(), event).toMatchObject(answer);
        const after = await entriesOf(store, user.id);
        expect(after.length, event).toBe(before.length + 1);
        expect(after.filter((entry) => entry.event === event).length, event).toBe(1);
      }
      expect(await store.users.findById(user.id)).toBeUndefined();
      // What changes nothing writes nothing.
      const bob = await addUser(store, 'bob');
      expect(await people.enable(BY_OPERATOR, bob)).toMatchObject({ changed: [] });
      expect(await people.update(BY_OPERATOR, bob, { fullName: 'Full bob' })).toMatchObject({ changed: [] });
      expect(await entriesOf(store, bob)).toEqual([]);
    },
  );

  storeTest(
    'a change whose audit entry cannot be written leaves neither the change nor the entry',
    async ({ testStore: { store }, expect }) => {
      const people = new People(store, () => T0, null);
      const id = await addUser(store, 'carol');
      await store.sessions.create({ idHash: 'c1', userId: id, createdAt: T0, lastSeenAt: T0 });
      const before = await store.users.findById(id);
      for (const change of [
        () => people.setPassword(UNWRITABLE, id, 'hash-2'),
        () => people.disable(UNWRITABLE, id),
        () => people.update(UNWRITABLE, id, { fullName: 'Carol Changed', timeZone: 'Europe/Berlin' }),
        () => people.endSessions(UNWRITABLE, id),
        () => people.remove(UNWRITABLE, id),
        () => people.create(UNWRITABLE, { username: 'dave', fullName: 'Dave' }),
      ])
        await expect(change()).rejects.toThrow(/BigInt/);
      expect(await store.users.findById(id)).toEqual(before);
      expect(await store.users.findByUsername(usernameOrThrow('dave'))).toBeUndefined();
      expect(await store.sessions.listOpenOfUser(id)).toHaveLength(1);
      expect(await store.audit.list({ limit: 100 })).toEqual([]);
    },
  );

  storeTest(
    "the audit listeners (webhooks) hear a change's entry once it is committed, and nothing of one rolled back",
    async ({ testStore, expect }) => {
      const heard: string[] = [];
      const listener: AuditListener = (entry) => heard.push(entry.event);
      const store = observedStore(testStore.store, new Metrics(), [listener]);
      const people = new People(store, () => T0, null);
      const id = await addUser(store, 'fay');
      await expect(people.setPassword(UNWRITABLE, id, 'hash-2')).rejects.toThrow(/BigInt/);
      expect(heard).toEqual([]);
      const setting = people.setPassword(BY_OPERATOR, id, 'hash-3');
      expect(heard).toEqual([]);
      await setting;
      expect(heard).toEqual(['user.password_set']);
    },
  );

  storeTest(
    'a part another source owns is refused naming the owner, and nothing is written',
    async ({ testStore: { store }, expect }) => {
      const people = new People(store, () => T0, null);
      const refusals: [UserSource, UserSource, () => (id: string) => Promise<unknown>, string][] = [
        [
          'ldap',
          'local',
          () => (id) => people.update(BY_OPERATOR, id, { fullName: 'X' }),
          "ldap-user's full name comes from the directory (DEA_LDAP_URL); change it there",
        ],
        [
          'ldap',
          'local',
          () => (id) => people.setPassword(BY_OPERATOR, id, 'hash-2'),
          "ldap-user's password is the directory's (DEA_LDAP_URL)",
        ],
        [
          'scim',
          'local',
          () => (id) => people.update(BY_OPERATOR, id, { fullName: 'X' }),
          "scim-user's full name comes from the identity provider (SCIM); change it there",
        ],
        [
          'import',
          'local',
          () => (id) => people.update(BY_OPERATOR, id, { username: 'other-name' }),
          "import-user's user name comes from the import file (dea user import); change it there",
        ],
        [
          'local',
          'scim',
          () => (id) => people.disable({ door: 'scim', actor: 'scim:okta' }, id),
          "local-user's enabled or disabled state comes from the administrators (dea user or the console); change it there",
        ],
        [
          'scim',
          'ldap',
          () => (id) => people.update({ door: 'ldap', actor: 'directory' }, id, { username: 'taken-over' }),
          "scim-user's user name comes from the identity provider (SCIM)",
        ],
      ];
      for (const [source, door, change, message] of refusals) {
        const username = `${source}-user`;
        const id =
          (await store.users.findByUsername(usernameOrThrow(username)))?.id ??
          (await addUser(store, username, source));
        const before = await store.users.findById(id);
        const refused = await change()(id).catch((error: unknown) => error);
        expect(refused, `${source} by ${door}`).toBeInstanceOf(OwnershipRefused);
        expect((refused as OwnershipRefused).message).toContain(message);
        expect(refused).toMatchObject({ owner: source, door });
        expect(await store.users.findById(id)).toEqual(before);
      }
      expect(await store.audit.list({ limit: 100 })).toEqual([]);
      // What the table grants: the administrators' levers on every user, the source's own fields.
      const ldapUser = (await store.users.findByUsername(usernameOrThrow('ldap-user')))?.id ?? '';
      expect(await people.disable(BY_OPERATOR, ldapUser)).toMatchObject({ changed: ['disabled'] });
      expect(
        await people.update({ door: 'ldap', actor: 'directory' }, ldapUser, { fullName: 'From LDAP' }),
      ).toMatchObject({ changed: ['fullName'] });
    },
  );

  storeTest(
    'twenty changes at once from two instances of the store: each one audited exactly once',
    async ({ testStore, expect }) => {
      const { store } = testStore;
      // In a thread of its own, as a second server or the CLI beside one would be.
      const second = await openSecondInstance(testStore);
      try {
        const id = await addUser(store, 'erin');
        const people = new People(store, () => T0, null);
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, index) => {
            const here = index % 2 === 0;
            if (index % 4 < 2)
              return here
                ? people.setPassword(BY_OPERATOR, id, `hash-${index}`)
                : second.setPassword(id, `hash-${index}`);
            if (index % 8 < 4) return here ? people.disable(BY_OPERATOR, id) : second.disable(id);
            return here ? people.enable(BY_OPERATOR, id) : second.enable(id);
          }),
        );
        const changes = answers.filter((answer) => answer.changed.length > 0).length;
        const entries = await entriesOf(store, id);
        expect(entries).toHaveLength(changes);
        expect(entries.filter((entry) => entry.event === 'user.password_set')).toHaveLength(10);
        const count = (event: string) => entries.filter((entry) => entry.event === event).length;
        // Under the row's lock each toggle sees the one before: from enabled they alternate, so the
        // user is disabled exactly when one more disable than enable was audited.
        const disabled = count('user.disabled');
        const enabled = count('user.enabled');
        expect(disabled + enabled).toBe(changes - 10);
        expect(disabled).toBeGreaterThan(0);
        expect([enabled, enabled + 1]).toContain(disabled);
        expect((await store.users.findById(id))?.disabled).toBe(disabled > enabled);
        expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
      } finally {
        await second.close();
      }
    },
  );
  storeTest(
    "a sign-in's stamps: the time of the sign-in, and a hash made again only while it is still the one read",
    async ({ testStore: { store }, expect }) => {
      const people = new People(store, () => T0, null);
      const id = await addUser(store, 'ida', 'ldap');
      await people.recordSignIn(id, T0 + 1_000);
      await people.recordSignIn(id, T0 + 2_000);
      expect(await store.users.findById(id)).toMatchObject({
        lastLoginAt: T0 + 1_000,
        currentLoginAt: T0 + 2_000,
      });

      const ann = await addUser(store, 'ann');
      expect(await people.rehashPassword(ann, 'hash-0', 'hash-0-again')).toBe(true);
      // A password set meanwhile is never undone by a rehash of the old one.
      await people.setPassword(BY_OPERATOR, ann, 'hash-new');
      expect(await people.rehashPassword(ann, 'hash-0-again', 'hash-old-again')).toBe(false);
      expect((await store.users.findById(ann))?.passwordHash).toBe('hash-new');
      // Neither stamp is a change of the user the audit log keeps apart from the sign-in's entry.
      expect((await entriesOf(store, id)).map((entry) => entry.event)).toEqual([]);
      expect((await entriesOf(store, ann)).map((entry) => entry.event)).toEqual(['user.password_set']);
    },
  );
});
