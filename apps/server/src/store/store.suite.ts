import { usernameOrThrow } from '@dea/contract';
import type { BrandingEntry, ChannelKey } from '@dea/contract';
import { describe, type ExpectStatic } from 'vitest';
import { newId } from '../crypto/ids.js';
import { storeTest } from '../testing/fixtures.js';
import { cutoffsAt } from '../testing/purge-cutoffs.js';
import { recordPostgresQueries } from '../testing/recorded-sql.js';
import type { StoreKind, TestStore } from '../testing/stores.js';
import { openStore } from './open-store.js';
import type { AuditFilter, Channel, NewAuditEntry, NewCode, NewUser, Store, User } from './store.js';

/** A fixed clock: every time in these tests is T0 plus some milliseconds. */
const T0 = 1_700_000_000_000;

const MINUTE = 60_000;

function newCode(userId: string, overrides: Partial<NewCode> = {}): NewCode {
  return {
    id: newId(),
    userId,
    codeHash: `code-hash-${Math.random().toString(36).slice(2)}`,
    createdAt: T0,
    expiresAt: T0 + 10 * MINUTE,
    uses: 1,
    channelType: 'sms',
    ...overrides,
  };
}

function issueAudit(userId: string, details: Record<string, unknown> = {}): NewAuditEntry {
  return { event: 'code.issued', userId, actor: userId, clientAddress: '192.0.2.1', details };
}

/** What each test gets: its own fresh store and helpers bound to it. */
interface StoreFixture {
  store: Store;
  /** The expect of this test (tests run concurrently). */
  expect: ExpectStatic;
  /** Another instance on the same database (PostgreSQL) or file (SQLite); the caller closes it. */
  openSecondInstance: () => Promise<Store>;
  addUser: (overrides?: Partial<NewUser>) => Promise<NewUser>;
  /** Issues a code with room to spare; fails the test when the store refuses. */
  issue: (userId: string, overrides?: Partial<NewCode>) => Promise<NewCode>;
  expectTimesAreNumbers: (user: User) => void;
}

let userCounter = 0;

function storeFixture(testStore: TestStore, expect: ExpectStatic): StoreFixture {
  const { store } = testStore;
  return {
    store,
    expect,
    openSecondInstance: () => openStore({ databaseUrl: testStore.databaseUrl, dataDir: testStore.dataDir }),
    addUser: async (overrides = {}) => {
      userCounter += 1;
      const user: NewUser = {
        id: newId(),
        username: usernameOrThrow(`user${userCounter}-${Math.random().toString(36).slice(2, 8)}`),
        passwordHash: `hash-${userCounter}`,
        fullName: `User ${userCounter}`,
        locale: 'en',
        createdAt: T0,
        ...overrides,
      };
      await store.users.create(user);
      return user;
    },
    issue: async (userId, overrides = {}) => {
      const code = newCode(userId, overrides);
      expect(await store.codes.issue(code, 100, issueAudit(userId))).toEqual({ issued: true, channels: [] });
      return code;
    },
    expectTimesAreNumbers: (user) => {
      expect(typeof user.createdAt).toBe('number');
      if (user.lastLoginAt !== null) expect(typeof user.lastLoginAt).toBe('number');
      if (user.currentLoginAt !== null) expect(typeof user.currentLoginAt).toBe('number');
    },
  };
}

/**
 * The one contract test suite of the store. Every implementation (the embedded SQLite file and
 * PostgreSQL) must pass it unchanged. Each test gets a fresh, migrated store of its own (the
 * `testStore` fixture), so the tests run concurrently to keep the suite fast.
 */
/** A code as listActive answers it: what was issued, with the uses it has left. */
function listed(
  code: {
    id: string;
    codeHash: string;
    channelType: string | null;
    createdAt: number;
    expiresAt: number;
    uses: number;
  },
  usesLeft = code.uses,
) {
  const { id, codeHash, channelType, createdAt, expiresAt } = code;
  return { id, codeHash, channelType, createdAt, expiresAt, usesLeft };
}

export function storeSuite(kind: StoreKind): void {
  storeTest.override('storeKind', kind);

  /** A concurrent test that receives its own store. */
  function test(name: string, body: (fixture: StoreFixture) => Promise<void>): void {
    storeTest.concurrent(name, ({ testStore, expect }) => body(storeFixture(testStore, expect)));
  }

  test('answers ping and names its kind', async ({ store, expect }) => {
    await expect(store.ping()).resolves.toBeUndefined();
    expect(store.kind).toBe(kind);
  });

  describe.concurrent('help desk reads', () => {
    test('lists open sessions, active codes with their times, and users by the end of an address', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const other = await addUser();
      await store.sessions.create({ idHash: 'h1', userId: user.id, createdAt: T0, lastSeenAt: T0 + 5 });
      await store.sessions.create({ idHash: 'h2', userId: user.id, createdAt: T0 + 1, lastSeenAt: T0 + 1 });
      await store.sessions.end('h2', T0 + 2);
      expect(await store.sessions.listOpenOfUser(user.id)).toEqual([
        { idHash: 'h1', userId: user.id, createdAt: T0, lastSeenAt: T0 + 5, endedAt: null },
      ]);
      await store.channels.set({
        id: 'r1',
        userId: user.id,
        key: 'mobile',
        address: '+491705550123',
        createdAt: T0,
      });
      await store.channels.set({
        id: 'r2',
        userId: other.id,
        key: 'telephone',
        address: '+4930550123',
        createdAt: T0,
      });
      await store.channels.set({
        id: 'r3',
        userId: other.id,
        key: 'email',
        address: 'x0123@example.com',
        createdAt: T0,
      });
      expect((await store.channels.findUserIdsByAddressEnding('0123', 10)).sort()).toEqual(
        [user.id, other.id].sort(),
      );
      expect((await store.channels.findUserIdsByAddressEnding('550123', 10)).sort()).toEqual(
        [user.id, other.id].sort(),
      );
      expect(await store.channels.findUserIdsByAddressEnding('5550123', 10)).toEqual([user.id]);
      expect(await store.channels.findUserIdsByAddressEnding('%', 10)).toEqual([]);
    });
  });

  describe.concurrent('console', () => {
    test('keeps accounts, passkeys and sessions; a challenge is taken once; counters only move on', async ({
      store,
      expect,
    }) => {
      const account = {
        id: newId(),
        username: usernameOrThrow('ada'),
        displayName: 'Ada Admin',
        role: 'admin' as const,
        passwordHash: 'h',
        createdAt: T0,
      };
      await store.console.createAccount(account);
      await expect(store.console.createAccount({ ...account, id: newId() })).rejects.toThrow();
      expect(await store.console.findAccountByUsername(usernameOrThrow('ada'))).toEqual({
        ...account,
        disabled: false,
        scope: null,
      });
      expect(await store.console.updateAccount(account.id, { scope: ['Finance', 'Sales'] })).toBe(true);
      expect((await store.console.findAccountById(account.id))?.scope).toEqual(['Finance', 'Sales']);
      expect(await store.console.updateAccount(account.id, { scope: null })).toBe(true);
      expect((await store.console.findAccountById(account.id))?.scope).toBeNull();
      expect(await store.console.updateAccount(account.id, { disabled: true, role: 'auditor' })).toBe(true);
      expect(await store.console.findAccountById(account.id)).toMatchObject({
        disabled: true,
        role: 'auditor',
      });

      const passkey = {
        credentialId: 'cred-1',
        accountId: account.id,
        publicKey: 'pk',
        counter: 5,
        transports: ['internal'],
        createdAt: T0,
        lastUsedAt: null,
      };
      await store.console.addPasskey(passkey);
      expect(await store.console.listPasskeys(account.id)).toEqual([passkey]);
      expect(await store.console.usePasskey('cred-1', 5, T0 + 1)).toBe(false);
      expect(await store.console.usePasskey('cred-1', 6, T0 + 2)).toBe(true);
      expect(await store.console.findPasskey('cred-1')).toMatchObject({ counter: 6, lastUsedAt: T0 + 2 });
      await store.console.addPasskey({ ...passkey, credentialId: 'cred-0', counter: 0 });
      expect(await store.console.usePasskey('cred-0', 0, T0 + 3)).toBe(true);

      await store.console.createSession({
        idHash: 's1',
        accountId: account.id,
        xsrfHash: 'x',
        createdAt: T0,
        lastSeenAt: T0,
      });
      await store.console.setChallenge('s1', 'challenge-1');
      const takers = await Promise.all([1, 2, 3].map(() => store.console.takeChallenge('s1')));
      expect(takers.filter((taken) => taken === 'challenge-1')).toHaveLength(1);
      await store.console.markPasskey('s1', T0 + 4);
      expect(await store.console.findSession('s1')).toMatchObject({
        passkeyAt: T0 + 4,
        challenge: null,
        endedAt: null,
      });
      expect(await store.console.endSessionsOf(account.id, T0 + 5)).toBe(1);
      expect((await store.console.findSession('s1'))?.endedAt).toBe(T0 + 5);
      expect(await store.console.removePasskeys(account.id)).toBe(2);
      expect(await store.console.removeAccount(account.id)).toBe(true);
      expect(await store.console.findSession('s1')).toBeUndefined();
      expect(await store.console.listAccounts()).toEqual([]);
    });

    test('an enrolment link is used once, even by many at once over two instances; not after it expires, not by another account', async ({
      store,
      expect,
      openSecondInstance,
    }) => {
      const account = (username: string) => ({
        id: newId(),
        username: usernameOrThrow(username),
        displayName: username,
        role: 'admin' as const,
        passwordHash: 'h',
        createdAt: T0,
      });
      const ada = account('ada');
      const bo = account('bo');
      await store.console.createAccount(ada);
      await store.console.createAccount(bo);
      const link = { tokenHash: 'link-1', accountId: ada.id, createdAt: T0, expiresAt: T0 + MINUTE };
      await store.console.addEnrolmentLink(link);
      expect(await store.console.findEnrolmentLink(['other', 'link-1'])).toEqual({ ...link, usedAt: null });
      expect(await store.console.useEnrolmentLink(['link-1'], bo.id, T0 + 1)).toBe(false);
      expect(await store.console.useEnrolmentLink(['link-1'], ada.id, T0 + MINUTE)).toBe(false);

      const second = await openSecondInstance();
      try {
        const uses = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            (i % 2 === 0 ? store : second).console.useEnrolmentLink(['link-1'], ada.id, T0 + 2),
          ),
        );
        expect(uses.filter(Boolean)).toHaveLength(1);
      } finally {
        await second.close();
      }
      expect(await store.console.findEnrolmentLink(['link-1'])).toMatchObject({ usedAt: T0 + 2 });

      // A new link replaces the account's unused ones; a used one stays as it was.
      await store.console.addEnrolmentLink({ ...link, tokenHash: 'link-2' });
      await store.console.addEnrolmentLink({ ...link, tokenHash: 'link-3' });
      expect(await store.console.findEnrolmentLink(['link-2'])).toBeUndefined();
      expect(await store.console.findEnrolmentLink(['link-1'])).toMatchObject({ usedAt: T0 + 2 });
      expect(await store.console.useEnrolmentLink(['link-3'], ada.id, T0 + 3)).toBe(true);
      expect(await store.console.removeAccount(ada.id)).toBe(true);
      expect(await store.console.findEnrolmentLink(['link-3'])).toBeUndefined();
    });
  });

  describe.concurrent('users', () => {
    test('creates a user and finds it by id and by username', async ({
      store,
      expect,
      addUser,
      expectTimesAreNumbers,
    }) => {
      const user = await addUser({ username: usernameOrThrow('alice'), fullName: 'Alice A', locale: 'de' });
      const expected: User = {
        id: user.id,
        username: usernameOrThrow('alice'),
        passwordHash: user.passwordHash,
        fullName: 'Alice A',
        locale: 'de',
        timeZone: null,
        disabled: false,
        createdAt: T0,
        lastLoginAt: null,
        currentLoginAt: null,
        source: 'local',
        externalId: null,
        givenName: null,
        familyName: null,
        primaryEmail: null,
        primaryPhone: null,
        displayName: null,
        formattedName: null,
        updatedAt: null,
      };
      const byId = await store.users.findById(user.id);
      expect(byId).toEqual(expected);
      expectTimesAreNumbers(byId!);
      expect(await store.users.findByUsername(usernameOrThrow('alice'))).toEqual(expected);
      expect(await store.users.findById(newId())).toBeUndefined();
      expect(await store.users.findByUsername(usernameOrThrow('nobody'))).toBeUndefined();
      // The username match is exact.
      expect(await store.users.findByUsername(usernameOrThrow('alic'))).toBeUndefined();
    });

    test('keeps where a user comes from and finds it by its id in that source, renamed or not', async ({
      store,
      expect,
      addUser,
    }) => {
      const local = await addUser();
      const fromDirectory = await addUser({ source: 'ldap', externalId: 'uuid-1' });
      await addUser({ source: 'scim', externalId: 'uuid-1' });
      expect(await store.users.findByExternalId('ldap', 'uuid-1')).toMatchObject({
        id: fromDirectory.id,
        source: 'ldap',
        externalId: 'uuid-1',
      });
      expect(await store.users.findByExternalId('import', 'uuid-1')).toBeUndefined();
      await expect(addUser({ source: 'ldap', externalId: 'uuid-1' })).rejects.toThrow();
      expect(await store.users.update(fromDirectory.id, { username: usernameOrThrow('renamed') })).toBe(true);
      expect(await store.users.findByExternalId('ldap', 'uuid-1')).toMatchObject({ username: 'renamed' });
      expect((await store.users.listOfSource('ldap')).map((user) => user.id)).toEqual([fromDirectory.id]);
      expect((await store.users.listOfSource('local')).map((user) => user.id)).toEqual([local.id]);
      const group = { id: newId(), name: 'VPN', priority: 1, source: 'ldap' as const };
      await store.groups.create(group);
      await store.groups.addMember(group.id, fromDirectory.id);
      expect(await store.groups.listOfUser(fromDirectory.id)).toEqual([group]);
      expect(await store.groups.listOfUser(local.id)).toEqual([]);
      expect(await store.users.update(local.id, { source: 'import', externalId: local.username })).toBe(true);
      expect(await store.users.findByExternalId('import', local.username)).toMatchObject({
        id: local.id,
        source: 'import',
      });
    });

    test('lists users by username and counts them', async ({
      store,
      expect,
      addUser,
      expectTimesAreNumbers,
    }) => {
      expect(await store.users.list()).toEqual([]);
      expect(await store.users.count()).toBe(0);
      await addUser({ username: usernameOrThrow('carol') });
      await addUser({ username: usernameOrThrow('alice') });
      await addUser({ username: usernameOrThrow('bob') });
      const users = await store.users.list();
      expect(users.map((user) => user.username)).toEqual(['alice', 'bob', 'carol']);
      for (const user of users) expectTimesAreNumbers(user);
      const count = await store.users.count();
      expect(count).toBe(3);
      expect(typeof count).toBe('number');
    });

    test('refuses a second user with the same username', async ({ store, expect, addUser }) => {
      const first = await addUser({ username: usernameOrThrow('alice') });
      await expect(
        store.users.create({ ...first, id: newId(), fullName: 'Another Alice' }),
      ).rejects.toThrow();
      expect(await store.users.count()).toBe(1);
      expect((await store.users.findByUsername(usernameOrThrow('alice')))?.id).toBe(first.id);
    });

    test('updates each field on its own and leaves the others', async ({ store, expect, addUser }) => {
      const user = await addUser({ fullName: 'Old Name', locale: 'en', passwordHash: 'old-hash' });
      const read = async (): Promise<User> => (await store.users.findById(user.id))!;
      const before = await read();

      expect(await store.users.update(user.id, { fullName: 'New Name' })).toBe(true);
      expect(await read()).toEqual({ ...before, fullName: 'New Name' });

      expect(await store.users.update(user.id, { locale: 'fr' })).toBe(true);
      expect(await read()).toEqual({ ...before, fullName: 'New Name', locale: 'fr' });

      expect(await store.users.update(user.id, { disabled: true })).toBe(true);
      expect(await read()).toEqual({ ...before, fullName: 'New Name', locale: 'fr', disabled: true });

      expect(await store.users.update(user.id, { passwordHash: 'new-hash' })).toBe(true);
      expect(await read()).toEqual({
        ...before,
        fullName: 'New Name',
        locale: 'fr',
        disabled: true,
        passwordHash: 'new-hash',
      });

      expect(await store.users.update(user.id, { disabled: false, fullName: 'Both' })).toBe(true);
      expect(await read()).toEqual({
        ...before,
        fullName: 'Both',
        locale: 'fr',
        disabled: false,
        passwordHash: 'new-hash',
      });
    });

    test('answers whether the user exists on update', async ({ store, expect, addUser }) => {
      const user = await addUser();
      expect(await store.users.update(newId(), { fullName: 'Ghost' })).toBe(false);
      expect(await store.users.update(user.id, {})).toBe(true);
      expect(await store.users.update(newId(), {})).toBe(false);
      // An update of another user changes nothing here.
      expect((await store.users.findById(user.id))?.fullName).toBe(user.fullName);
    });

    test('removes a user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      expect(await store.users.remove(user.id)).toBe(true);
      expect(await store.users.findById(user.id)).toBeUndefined();
      expect(await store.users.findByUsername(user.username)).toBeUndefined();
      expect(await store.users.remove(user.id)).toBe(false);
      expect(await store.users.count()).toBe(1);
      expect((await store.users.list()).map((u) => u.id)).toEqual([other.id]);
    });

    test('moves the current sign-in to the last one on each sign-in', async ({
      store,
      expect,
      addUser,
      expectTimesAreNumbers,
    }) => {
      const user = await addUser();
      const first = await store.users.recordSignIn(user.id, T0 + 1_000);
      expect(first?.lastLoginAt).toBeNull();
      expect(first?.currentLoginAt).toBe(T0 + 1_000);
      expectTimesAreNumbers(first!);

      const second = await store.users.recordSignIn(user.id, T0 + 2_000);
      expect(second?.lastLoginAt).toBe(T0 + 1_000);
      expect(second?.currentLoginAt).toBe(T0 + 2_000);
      expectTimesAreNumbers(second!);

      const third = await store.users.recordSignIn(user.id, T0 + 3_000);
      expect(third?.lastLoginAt).toBe(T0 + 2_000);
      expect(third?.currentLoginAt).toBe(T0 + 3_000);

      const stored = await store.users.findById(user.id);
      expect(stored).toEqual(third);
      expect(stored).toMatchObject({ id: user.id, username: user.username, createdAt: T0 });
      expect(await store.users.recordSignIn(newId(), T0)).toBeUndefined();
    });
  });

  describe.concurrent('groups and policies', () => {
    async function addGroup(store: Store, name: string, priority: number): Promise<string> {
      const id = newId();
      await store.groups.create({ id, name, priority });
      return id;
    }

    test('creates, finds and lists groups by priority', async ({ store, expect }) => {
      const low = await addGroup(store, 'low', 1);
      const high = await addGroup(store, 'high', 10);
      const alsoLow = await addGroup(store, 'also-low', 1);
      expect(await store.groups.findByName('high')).toEqual({
        id: high,
        name: 'high',
        priority: 10,
        source: 'local',
      });
      expect(await store.groups.findByName('none')).toBeUndefined();
      const groups = await store.groups.list();
      expect(groups).toEqual([
        { id: high, name: 'high', priority: 10, source: 'local' },
        { id: alsoLow, name: 'also-low', priority: 1, source: 'local' },
        { id: low, name: 'low', priority: 1, source: 'local' },
      ]);
      for (const group of groups) expect(typeof group.priority).toBe('number');
      await expect(store.groups.create({ id: newId(), name: 'high', priority: 3 })).rejects.toThrow();
      expect(await store.groups.rename(low, 'lower')).toBe(true);
      expect(await store.groups.findByName('lower')).toEqual({
        id: low,
        name: 'lower',
        priority: 1,
        source: 'local',
      });
      await expect(store.groups.rename(low, 'high')).rejects.toThrow();
      expect(await store.groups.rename(newId(), 'ghost')).toBe(false);
    });

    test('remembers who owns a group, and hands it over', async ({ store, expect, addUser }) => {
      const scim = newId();
      await store.groups.create({ id: scim, name: `scim-${scim}`, priority: 0, source: 'scim' });
      const local = await addGroup(store, `local-${scim}`, 0);
      const { id: user } = await addUser();
      await store.groups.addMember(local, user);
      await store.groups.addMember(scim, user);
      expect((await store.groups.listOfUser(user)).map((group) => [group.id, group.source])).toEqual([
        [local, 'local'],
        [scim, 'scim'],
      ]);
      expect(await store.groups.setSource(local, 'scim')).toBe(true);
      expect((await store.groups.findByName(`local-${scim}`))?.source).toBe('scim');
      expect(await store.groups.setSource(newId(), 'scim')).toBe(false);
    });

    test('resolves the policy of the highest-priority group that has one for the category', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const low = await addGroup(store, 'low', 1);
      const mid = await addGroup(store, 'mid', 5);
      const high = await addGroup(store, 'high', 10);
      const notMine = await addGroup(store, 'not-mine', 100);
      for (const group of [low, mid, high]) await store.groups.addMember(group, user.id);

      await store.groups.setPolicy(low, 'codes', { maxUnused: 1 });
      await store.groups.setPolicy(mid, 'codes', { maxUnused: 5, nested: { list: [1, 'a'] } });
      await store.groups.setPolicy(high, 'channels', { allowed: ['sms'] });
      await store.groups.setPolicy(notMine, 'codes', { maxUnused: 99 });

      // 'high' has no 'codes' policy and 'not-mine' is not the user's: 'mid' wins.
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({
        maxUnused: 5,
        nested: { list: [1, 'a'] },
      });
      expect(await store.groups.findPolicyOfUser(user.id, 'channels')).toEqual({ allowed: ['sms'] });
      expect(await store.groups.findPolicyOfUser(user.id, 'other')).toBeUndefined();

      const loner = await addUser();
      expect(await store.groups.findPolicyOfUser(loner.id, 'codes')).toBeUndefined();
      expect(await store.groups.findPolicyOfUser(newId(), 'codes')).toBeUndefined();

      // Leaving 'mid' falls back to 'low'.
      await store.groups.removeMember(mid, user.id);
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({ maxUnused: 1 });
    });

    test('reads two categories at once as it reads each alone, also in parallel for several users', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const other = await addUser();
      const loner = await addUser();
      const low = await addGroup(store, 'low', 1);
      const high = await addGroup(store, 'high', 10);
      const tie = await addGroup(store, 'a-tie', 10);
      for (const group of [low, high, tie]) await store.groups.addMember(group, user.id);
      await store.groups.addMember(low, other.id);
      await store.groups.setPolicy(low, 'codes', { maxUnused: 1 });
      await store.groups.setPolicy(low, 'channels', { allowed: ['email'] });
      await store.groups.setPolicy(high, 'codes', { maxUnused: 5 });
      // Of two groups of one priority, the name first in order decides.
      await store.groups.setPolicy(tie, 'channels', { allowed: ['sms'] });
      await store.groups.setPolicy(high, 'channels', { allowed: ['voice'] });

      const [mine, others, none, oneOnly] = await Promise.all([
        store.groups.findPoliciesOfUser(user.id, ['codes', 'channels']),
        store.groups.findPoliciesOfUser(other.id, ['codes', 'channels']),
        store.groups.findPoliciesOfUser(loner.id, ['codes', 'channels']),
        store.groups.findPoliciesOfUser(user.id, ['codes', 'other']),
      ]);
      expect(mine).toEqual([{ maxUnused: 5 }, { allowed: ['sms'] }]);
      expect(mine).toEqual([
        await store.groups.findPolicyOfUser(user.id, 'codes'),
        await store.groups.findPolicyOfUser(user.id, 'channels'),
      ]);
      expect(others).toEqual([{ maxUnused: 1 }, { allowed: ['email'] }]);
      expect(none).toEqual([undefined, undefined]);
      expect(oneOnly).toEqual([{ maxUnused: 5 }, undefined]);
    });

    test('overwrites a policy on setPolicy', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const group = await addGroup(store, 'g', 1);
      await store.groups.addMember(group, user.id);
      await store.groups.setPolicy(group, 'codes', { maxUnused: 3, old: true });
      await store.groups.setPolicy(group, 'codes', { maxUnused: 7 });
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({ maxUnused: 7 });
    });

    test('adds a member idempotently and removes it', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const group = await addGroup(store, 'g', 1);
      await store.groups.setPolicy(group, 'codes', { maxUnused: 2 });
      expect(await store.groups.addMember(group, user.id)).toBe(true);
      expect(await store.groups.addMember(group, user.id)).toBe(false);
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({ maxUnused: 2 });

      // One removal is enough: the second add did not make a second membership.
      expect(await store.groups.removeMember(group, user.id)).toBe(true);
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toBeUndefined();
      expect(await store.groups.removeMember(group, user.id)).toBe(false);
    });

    test('lists the policies and the members of a group', async ({ store, expect, addUser }) => {
      const group = await addGroup(store, 'g', 1);
      const other = await addGroup(store, 'other', 2);
      expect(await store.groups.listPolicies(group)).toEqual([]);
      expect(await store.groups.listMembers(group)).toEqual([]);
      await store.groups.setPolicy(group, 'Self Service', { codeLength: 8, enableECode: true });
      await store.groups.setPolicy(group, 'Another', { codeUses: 2 });
      await store.groups.setPolicy(other, 'Self Service', { codeLength: 12 });
      expect(await store.groups.listPolicies(group)).toEqual([
        { category: 'Another', options: { codeUses: 2 } },
        { category: 'Self Service', options: { codeLength: 8, enableECode: true } },
      ]);
      const [first, second, outsider] = [await addUser(), await addUser(), await addUser()];
      await store.groups.addMember(group, first.id);
      await store.groups.addMember(group, second.id);
      await store.groups.addMember(other, outsider.id);
      expect(await store.groups.listMembers(group)).toEqual([first.id, second.id].sort());
      await store.users.remove(first.id);
      expect(await store.groups.listMembers(group)).toEqual([second.id]);
    });

    test('removes memberships with the user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const group = await addGroup(store, 'g', 1);
      await store.groups.setPolicy(group, 'codes', { maxUnused: 2 });
      await store.groups.addMember(group, user.id);
      await store.users.remove(user.id);
      // Same id again: a fresh user is in no group.
      await store.users.create({ ...user, username: usernameOrThrow(`${user.username}-again`) });
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toBeUndefined();
    });
  });

  describe.concurrent('channels', () => {
    const setChannel = (
      store: Store,
      userId: string,
      key: ChannelKey,
      address: string,
      createdAt = T0,
    ): Promise<Channel> => store.channels.set({ id: newId(), userId, key, address, createdAt });

    test('sets a channel; a new address gets a new reference, the same address keeps it', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const id = newId();
      const created = await store.channels.set({
        id,
        userId: user.id,
        key: 'mobile',
        address: '+15550001',
        createdAt: T0,
      });
      expect(created).toEqual({
        id,
        userId: user.id,
        key: 'mobile',
        address: '+15550001',
        origin: 'source',
        provenAt: null,
        registeredAt: null,
      });

      const same = await store.channels.set({
        id: newId(),
        userId: user.id,
        key: 'mobile',
        address: '+15550001',
        createdAt: T0 + 1,
      });
      expect(same).toEqual(created);

      const newId2 = newId();
      const updated = await store.channels.set({
        id: newId2,
        userId: user.id,
        key: 'mobile',
        address: '+15550002',
        createdAt: T0 + 1,
      });
      expect(updated).toMatchObject({ id: newId2, userId: user.id, key: 'mobile', address: '+15550002' });
      expect(await store.channels.listOfUser(user.id)).toEqual([updated]);
      expect(await store.channels.findOfUser(user.id, id)).toBeUndefined();
      expect(await store.channels.findOfUser(user.id, newId2)).toEqual(updated);
    });

    test("a proven address is its person's: proven again it keeps its reference and registration, a new one gets both anew, a source takes it back", async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const first = await store.channels.setProven({
        id: newId(),
        userId: user.id,
        key: 'personalEmail',
        address: 'a@example.org',
        at: T0,
      });
      expect(first).toMatchObject({ origin: 'owner', provenAt: T0, registeredAt: T0 });
      const again = await store.channels.setProven({
        id: newId(),
        userId: user.id,
        key: 'personalEmail',
        address: 'a@example.org',
        at: T0 + 5,
      });
      expect(again).toEqual({ ...first, provenAt: T0 + 5 });
      const moved = await store.channels.setProven({
        id: newId(),
        userId: user.id,
        key: 'personalEmail',
        address: 'b@example.org',
        at: T0 + 9,
      });
      expect(moved.id).not.toBe(first.id);
      expect(moved).toMatchObject({ provenAt: T0 + 9, registeredAt: T0 + 9 });
      const taken = await store.channels.set({
        id: newId(),
        userId: user.id,
        key: 'personalEmail',
        address: 'b@example.org',
        createdAt: T0 + 10,
      });
      expect(taken).toMatchObject({ id: moved.id, origin: 'source' });
    });

    test("lists the user's channels only, in the order they were made", async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const other = await addUser();
      const email = await setChannel(store, user.id, 'email', 'a@example.org', T0 + 2);
      const mobile = await setChannel(store, user.id, 'mobile', '+15550001', T0 + 1);
      const twitter = await setChannel(store, user.id, 'twitter', '@alice', T0 + 3);
      await setChannel(store, other.id, 'email', 'b@example.org');
      expect(await store.channels.listOfUser(user.id)).toEqual([mobile, email, twitter]);
      expect(await store.channels.listOfUser(other.id)).toHaveLength(1);
      expect(await store.channels.listOfUser(newId())).toEqual([]);
    });

    test("refuses another user's reference", async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      const mine = await setChannel(store, user.id, 'email', 'a@example.org');
      const theirs = await setChannel(store, other.id, 'email', 'b@example.org');
      expect(await store.channels.findOfUser(user.id, mine.id)).toEqual(mine);
      expect(await store.channels.findOfUser(user.id, theirs.id)).toBeUndefined();
      expect(await store.channels.findOfUser(other.id, mine.id)).toBeUndefined();
      expect(await store.channels.findOfUser(user.id, newId())).toBeUndefined();
    });

    test('removes a channel by key', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      const mobile = await setChannel(store, user.id, 'mobile', '+15550001');
      const email = await setChannel(store, user.id, 'email', 'a@example.org');
      const othersMobile = await setChannel(store, other.id, 'mobile', '+15550009');
      expect(await store.channels.remove(user.id, 'mobile')).toBe(true);
      expect(await store.channels.remove(user.id, 'mobile')).toBe(false);
      expect(await store.channels.remove(user.id, 'telephone')).toBe(false);
      expect(await store.channels.listOfUser(user.id)).toEqual([email]);
      expect(await store.channels.findOfUser(user.id, mobile.id)).toBeUndefined();
      expect(await store.channels.listOfUser(other.id)).toEqual([othersMobile]);

      // A new channel of a removed key gets the new reference.
      const again = await store.channels.set({
        id: 'fresh-reference',
        userId: user.id,
        key: 'mobile',
        address: '+15550003',
        createdAt: T0 + 5,
      });
      expect(again.id).toBe('fresh-reference');
    });

    test('removes the channels with the user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const other = await addUser();
      const mobile = await setChannel(store, user.id, 'mobile', '+15550001');
      await setChannel(store, user.id, 'email', 'a@example.org');
      const othersEmail = await setChannel(store, other.id, 'email', 'b@example.org');
      await store.users.remove(user.id);
      expect(await store.channels.listOfUser(user.id)).toEqual([]);
      expect(await store.channels.findOfUser(user.id, mobile.id)).toBeUndefined();
      expect(await store.channels.listOfUser(other.id)).toEqual([othersEmail]);
    });
  });

  describe.concurrent('codes', () => {
    test('issues up to maxUnused codes, then answers store-full', async ({ store, expect, addUser }) => {
      const user = await addUser();
      for (let i = 0; i < 3; i++) {
        const outcome = await store.codes.issue(
          newCode(user.id, { createdAt: T0 + i }),
          3,
          issueAudit(user.id),
        );
        expect(outcome).toEqual({ issued: true, channels: [] });
      }
      const refused = await store.codes.issue(
        newCode(user.id, { createdAt: T0 + 3 }),
        3,
        issueAudit(user.id),
      );
      expect(refused).toEqual({ issued: false, reason: 'store-full' });
      expect(await store.codes.countActive(user.id, T0 + 4)).toBe(3);
      // The limit is per user.
      const other = await addUser();
      expect(await store.codes.issue(newCode(other.id), 3, issueAudit(other.id))).toEqual({
        issued: true,
        channels: [],
      });
    });

    test("answers the user's channels with the issue, as listOfUser lists them, alone and gathered in one statement", async ({
      store,
      expect,
      addUser,
    }) => {
      const users = await Promise.all([addUser(), addUser(), addUser()]);
      const [first, second, third] = users.map((user) => user.id) as [string, string, string];
      await store.channels.set({
        id: newId(),
        userId: first,
        key: 'mobile',
        address: '+491705550101',
        createdAt: T0 + 2,
      });
      await store.channels.set({
        id: newId(),
        userId: first,
        key: 'email',
        address: 'one@example.com',
        createdAt: T0 + 2,
      });
      await store.channels.set({
        id: newId(),
        userId: first,
        key: 'telephone',
        address: '+4930550101',
        createdAt: T0 + 1,
      });
      await store.channels.setProven({
        id: newId(),
        userId: second,
        key: 'email',
        address: 'two@example.com',
        at: T0 + 3,
      });
      const listed = await Promise.all(users.map((user) => store.channels.listOfUser(user.id)));
      expect(listed.map((channels) => channels.length)).toEqual([3, 1, 0]);
      expect(listed[0]!.map((channel) => channel.key)).toEqual(['telephone', 'email', 'mobile']);
      expect(await store.codes.issue(newCode(first), 5, issueAudit(first))).toEqual({
        issued: true,
        channels: listed[0],
      });
      // The issues of one turn (one statement on PostgreSQL), each with its own user's channels.
      const recording = recordPostgresQueries();
      let outcomes: Awaited<ReturnType<typeof store.codes.issue>>[];
      try {
        outcomes = await Promise.all(
          users.map((user) => store.codes.issue(newCode(user.id), 5, issueAudit(user.id))),
        );
      } finally {
        recording.stop();
      }
      expect(outcomes).toEqual(listed.map((channels) => ({ issued: true, channels })));
      if (store.kind === 'postgres')
        expect(
          recording.queries.filter(({ values }) =>
            [first, second, third].some((id) => JSON.stringify(values ?? null).includes(id)),
          ),
        ).toHaveLength(1);
      // A refused issue answers no channels.
      expect(await store.codes.issue(newCode(first), 1, issueAudit(first))).toEqual({
        issued: false,
        reason: 'store-full',
      });
    });

    test('gives back a use whose answer did not get out, never to an unused or revoked code', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const code = newCode(user.id);
      await store.codes.issue(code, 5, issueAudit(user.id));
      expect(await store.codes.giveBackUse(code.id)).toBe(false);
      expect(await store.codes.consume(code.id, T0 + 1)).toBe(true);
      expect(await store.codes.countActive(user.id, T0 + 2)).toBe(0);
      expect(await store.codes.giveBackUse(code.id)).toBe(true);
      expect(await store.codes.countActive(user.id, T0 + 2)).toBe(1);
      expect(await store.codes.consume(code.id, T0 + 3)).toBe(true);
      expect(await store.codes.invalidate(code.id, T0 + 4)).toBe(true);
      expect(await store.codes.giveBackUse(code.id)).toBe(false);
    });

    test('answers no-user for an unknown user and stores nothing', async ({ store, expect }) => {
      const ghost = newId();
      const outcome = await store.codes.issue(newCode(ghost), 5, issueAudit(ghost));
      expect(outcome).toEqual({ issued: false, reason: 'no-user' });
      expect(await store.codes.countActive(ghost, T0)).toBe(0);
      expect(await store.audit.list({})).toEqual([]);
    });

    test('writes the audit entry with the code, and none when refused', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const details = { channel: 'sms', count: 1, flags: [true, null] };
      await store.codes.issue(newCode(user.id, { createdAt: T0 + 5 }), 1, issueAudit(user.id, details));
      const entries = await store.audit.list({});
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        at: T0 + 5,
        event: 'code.issued',
        userId: user.id,
        actor: user.id,
        clientAddress: '192.0.2.1',
        details,
      });

      const refused = await store.codes.issue(
        newCode(user.id, { createdAt: T0 + 6 }),
        1,
        issueAudit(user.id, { refused: true }),
      );
      expect(refused).toEqual({ issued: false, reason: 'store-full' });
      expect(await store.audit.list({})).toHaveLength(1);
    });

    test('keeps neither the code nor the audit entry when the audit entry cannot be written', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      // A BigInt cannot be written as JSON: the audit insert fails after the code insert.
      const broken: NewAuditEntry = { event: 'code.issued', userId: user.id, details: { n: 1n } };
      await expect(store.codes.issue(newCode(user.id), 5, broken)).rejects.toThrow();
      expect(await store.codes.countActive(user.id, T0)).toBe(0);
      expect(await store.codes.listActive(user.id, T0)).toEqual([]);
      expect(await store.audit.list({})).toEqual([]);
      // The rolled-back transaction leaves the store usable.
      expect(await store.codes.issue(newCode(user.id), 1, issueAudit(user.id))).toEqual({
        issued: true,
        channels: [],
      });
    });

    test('does not count expired, invalidated or used-up codes against maxUnused', async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const expiring = newCode(user.id, { createdAt: T0, expiresAt: T0 + 10 });
      expect(await store.codes.issue(expiring, 1, issueAudit(user.id))).toEqual({
        issued: true,
        channels: [],
      });
      expect(
        await store.codes.issue(newCode(user.id, { createdAt: T0 + 9 }), 1, issueAudit(user.id)),
      ).toEqual({ issued: false, reason: 'store-full' });

      // At its expiry time the first code no longer counts.
      const second = newCode(user.id, { createdAt: T0 + 10, expiresAt: T0 + MINUTE });
      expect(await store.codes.issue(second, 1, issueAudit(user.id))).toEqual({ issued: true, channels: [] });

      await store.codes.invalidate(second.id, T0 + 11);
      const third = newCode(user.id, { createdAt: T0 + 12, expiresAt: T0 + MINUTE });
      expect(await store.codes.issue(third, 1, issueAudit(user.id))).toEqual({ issued: true, channels: [] });

      expect(await store.codes.consume(third.id, T0 + 13)).toBe(true);
      const fourth = newCode(user.id, { createdAt: T0 + 14, expiresAt: T0 + MINUTE });
      expect(await store.codes.issue(fourth, 1, issueAudit(user.id))).toEqual({ issued: true, channels: [] });

      expect(await store.codes.listActive(user.id, T0 + 15)).toEqual([listed(fourth)]);
    });

    test('lists and counts active codes only', async ({ store, expect, addUser, issue }) => {
      const user = await addUser();
      const other = await addUser();
      const a = await issue(user.id, { createdAt: T0 + 1, expiresAt: T0 + 100 });
      const b = await issue(user.id, { createdAt: T0 + 2, expiresAt: T0 + 200, uses: 3 });
      const invalidated = await issue(user.id, { createdAt: T0 + 3 });
      await store.codes.invalidate(invalidated.id, T0 + 4);
      const used = await issue(user.id, { createdAt: T0 + 5 });
      expect(await store.codes.consume(used.id, T0 + 6)).toBe(true);
      await issue(user.id, { createdAt: T0 + 7, uses: 0 });
      await issue(other.id, { createdAt: T0 + 8 });

      expect(await store.codes.listActive(user.id, T0 + 50)).toEqual([listed(a), listed(b)]);
      const count = await store.codes.countActive(user.id, T0 + 50);
      expect(count).toBe(2);
      expect(typeof count).toBe('number');

      // A code is not active at its expiry time.
      expect(await store.codes.listActive(user.id, T0 + 100)).toEqual([listed(b)]);
      expect(await store.codes.countActive(user.id, T0 + 100)).toBe(1);
      expect(await store.codes.countActive(user.id, T0 + 200)).toBe(0);
      expect(await store.codes.listActive(newId(), T0)).toEqual([]);
      expect(await store.codes.countActive(newId(), T0)).toBe(0);
    });

    test('consumes one use at a time and refuses when none is left', async ({
      store,
      expect,
      addUser,
      issue,
    }) => {
      const user = await addUser();
      const code = await issue(user.id, { uses: 2 });
      expect(await store.codes.consume(code.id, T0 + 1)).toBe(true);
      expect(await store.codes.countActive(user.id, T0 + 1)).toBe(1);
      expect(await store.codes.consume(code.id, T0 + 2)).toBe(true);
      expect(await store.codes.countActive(user.id, T0 + 2)).toBe(0);
      expect(await store.codes.consume(code.id, T0 + 3)).toBe(false);
      expect(await store.codes.consume(newId(), T0 + 3)).toBe(false);
    });

    test('refuses to consume an expired or invalidated code', async ({ store, expect, addUser, issue }) => {
      const user = await addUser();
      const expiring = await issue(user.id, { expiresAt: T0 + 100, uses: 5 });
      expect(await store.codes.consume(expiring.id, T0 + 100)).toBe(false);
      expect(await store.codes.consume(expiring.id, T0 + 99)).toBe(true);

      const invalidated = await issue(user.id, { uses: 5 });
      await store.codes.invalidate(invalidated.id, T0 + 1);
      expect(await store.codes.consume(invalidated.id, T0 + 2)).toBe(false);
      // Invalidating again changes nothing.
      await store.codes.invalidate(invalidated.id, T0 + 3);
      expect(await store.codes.consume(invalidated.id, T0 + 4)).toBe(false);
      // Only the expiring code, with uses left, is active until it expires.
      expect(await store.codes.listActive(user.id, T0 + 5)).toEqual([listed(expiring, 4)]);
      expect(await store.codes.countActive(user.id, T0 + 100)).toBe(0);
    });

    test('purges expired, used and invalidated codes and keeps active ones', async ({
      store,
      expect,
      addUser,
      issue,
    }) => {
      const user = await addUser();
      const active = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000, uses: 2 });
      expect(await store.codes.consume(active.id, T0 + 1)).toBe(true);
      await issue(user.id, { createdAt: T0 + 1, expiresAt: T0 + 50 });
      const used = await issue(user.id, { createdAt: T0 + 2 });
      expect(await store.codes.consume(used.id, T0 + 3)).toBe(true);
      const invalidated = await issue(user.id, { createdAt: T0 + 4 });
      await store.codes.invalidate(invalidated.id, T0 + 5);

      expect(await store.retention.count('codes', cutoffsAt(T0 + 100))).toBe(3);
      const purged = await store.retention.removeBatch('codes', cutoffsAt(T0 + 100), 1000);
      expect(purged).toBe(3);
      expect(typeof purged).toBe('number');
      expect(await store.codes.listActive(user.id, T0 + 100)).toEqual([listed(active, 1)]);
      expect(await store.retention.removeBatch('codes', cutoffsAt(T0 + 100), 1000)).toBe(0);
      // The kept code still has its one use left.
      expect(await store.codes.consume(active.id, T0 + 101)).toBe(true);
      expect(await store.retention.removeBatch('codes', cutoffsAt(T0 + 102), 1000)).toBe(1);
    });

    test('removes expired codes first, then used and revoked ones, never more than a batch', async ({
      store,
      expect,
      addUser,
      issue,
    }) => {
      const user = await addUser();
      for (let index = 0; index < 3; index += 1) await issue(user.id, { createdAt: T0, expiresAt: T0 + 10 });
      const usedAndExpired = await issue(user.id, { createdAt: T0, expiresAt: T0 + 10 });
      expect(await store.codes.consume(usedAndExpired.id, T0 + 1)).toBe(true);
      for (let index = 0; index < 2; index += 1) {
        const used = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000 });
        expect(await store.codes.consume(used.id, T0 + 2)).toBe(true);
      }
      const revoked = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000 });
      await store.codes.invalidate(revoked.id, T0 + 3);
      const active = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000 });

      const cutoffs = cutoffsAt(T0 + 100);
      expect(await store.retention.count('codes', cutoffs)).toBe(7);
      expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(3);
      expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(3);
      expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(1);
      expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(0);
      expect(await store.codes.listActive(user.id, T0 + 100)).toEqual([listed(active, 1)]);
    });

    test('removes the codes with the user', async ({ store, expect, addUser, issue }) => {
      const user = await addUser();
      await issue(user.id);
      await store.users.remove(user.id);
      expect(await store.codes.countActive(user.id, T0)).toBe(0);
      expect(await store.retention.count('codes', cutoffsAt(T0 + 1_000_000))).toBe(0);
    });
  });

  describe.concurrent('concurrency', () => {
    const CALLS = 20;
    const MAX_UNUSED = 5;

    /** Issues CALLS codes at once, spread over the instances; `store` is the first of them. */
    async function concurrentIssues(
      { store, expect }: StoreFixture,
      stores: Store[],
      userId: string,
    ): Promise<void> {
      const outcomes = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          stores[i % stores.length]!.codes.issue(
            newCode(userId, { createdAt: T0 + i }),
            MAX_UNUSED,
            issueAudit(userId, { call: i }),
          ),
        ),
      );
      const issued = outcomes.filter((outcome) => outcome.issued);
      const full = outcomes.filter((outcome) => !outcome.issued && outcome.reason === 'store-full');
      expect(issued).toHaveLength(MAX_UNUSED);
      expect(full).toHaveLength(CALLS - MAX_UNUSED);
      expect(await store.codes.countActive(userId, T0 + CALLS)).toBe(MAX_UNUSED);
      // Exactly one audit entry per issued code.
      expect(await store.audit.list({ userId, event: 'code.issued' })).toHaveLength(MAX_UNUSED);
    }

    /** Consumes one code CALLS times at once, spread over the instances. */
    async function concurrentConsumes(
      { store, expect }: StoreFixture,
      stores: Store[],
      codeId: string,
    ): Promise<void> {
      const results = await Promise.all(
        Array.from({ length: CALLS }, (_, i) => stores[i % stores.length]!.codes.consume(codeId, T0 + 1)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.codes.consume(codeId, T0 + 2)).toBe(false);
    }

    test('answers each of many reads made at once with its own row, as it does one at a time', async ({
      store,
      expect,
      addUser,
    }) => {
      // PostgreSQL answers the reads of one turn of the event loop with one query for all their keys.
      const users = await Promise.all(Array.from({ length: 6 }, () => addUser()));
      const [first, second, third, fourth] = users.map((user) => user.id) as [string, string, string, string];
      const low = newId();
      const high = newId();
      await store.groups.create({ id: low, name: `low-${low}`, priority: 1 });
      await store.groups.create({ id: high, name: `high-${high}`, priority: 9 });
      await store.groups.setPolicy(low, 'codes', { maxUnused: 1 });
      await store.groups.setPolicy(high, 'codes', { maxUnused: 9 });
      await store.groups.setPolicy(low, 'channels', { allowed: ['sms'] });
      for (const user of [first, second]) await store.groups.addMember(low, user);
      for (const user of [second, third]) await store.groups.addMember(high, user);
      await store.channels.set({
        id: newId(),
        userId: first,
        key: 'email',
        address: 'a@example.org',
        createdAt: T0,
      });
      await store.channels.set({
        id: newId(),
        userId: first,
        key: 'mobile',
        address: '+15550100',
        createdAt: T0 + 1,
      });
      await store.channels.set({
        id: newId(),
        userId: third,
        key: 'mobile',
        address: '+15550101',
        createdAt: T0,
      });
      for (const [index, user] of users.entries()) {
        await store.sessions.create({
          idHash: `many-${index}`,
          userId: user.id,
          createdAt: T0,
          lastSeenAt: T0 + index,
        });
      }
      await store.users.remove(fourth);

      const ids = [...users.map((user) => user.id), newId()];
      const hashes = [...users.map((_, index) => `many-${index}`), 'many-unknown', 'many-0'];
      const policyReads = ids.flatMap((id) =>
        ['codes', 'channels', 'none'].map((category) => [id, category] as const),
      );
      const [sessions, policies, channels] = await Promise.all([
        Promise.all(hashes.map((hash) => store.sessions.find(hash))),
        Promise.all(policyReads.map(([id, category]) => store.groups.findPolicyOfUser(id, category))),
        Promise.all(ids.map((id) => store.channels.listOfUser(id))),
      ]);
      const one = async <T>(reads: (() => Promise<T>)[]): Promise<T[]> => {
        const answers: T[] = [];
        for (const read of reads) answers.push(await read());
        return answers;
      };
      expect(sessions).toEqual(await one(hashes.map((hash) => () => store.sessions.find(hash))));
      expect(policies).toEqual(
        await one(
          policyReads.map(
            ([id, category]) =>
              () =>
                store.groups.findPolicyOfUser(id, category),
          ),
        ),
      );
      expect(channels).toEqual(await one(ids.map((id) => () => store.channels.listOfUser(id))));
      // And what each answer holds.
      expect(sessions.map((session) => session?.userId)).toEqual([
        ...users.slice(0, 3).map((user) => user.id),
        undefined,
        ...users.slice(4).map((user) => user.id),
        undefined,
        first,
      ]);
      expect(sessions[0]?.user?.username).toBe(users[0]?.username);
      expect(policies.slice(0, 9)).toEqual([
        { maxUnused: 1 },
        { allowed: ['sms'] },
        undefined,
        { maxUnused: 9 },
        { allowed: ['sms'] },
        undefined,
        { maxUnused: 9 },
        undefined,
        undefined,
      ]);
      expect(channels.map((list) => list.map((channel) => channel.key))).toEqual([
        ['email', 'mobile'],
        [],
        ['mobile'],
        [],
        [],
        [],
        [],
      ]);
    });

    test('issues the codes of many users at once, each under its own limit; a failing issue fails alone', async (fixture) => {
      const { store, expect } = fixture;
      const users = await Promise.all(Array.from({ length: 4 }, () => fixture.addUser()));
      const [holder, ...others] = users as [NewUser, ...NewUser[]];
      const taken = await fixture.issue(holder.id);
      const unlucky = await fixture.addUser();
      const calls = [
        ...users.flatMap((user) =>
          Array.from({ length: 5 }, (_, i) => newCode(user.id, { createdAt: T0 + 10 + i })),
        ),
        // This one reuses the id of a code already stored: its insert fails, the others must not.
        { ...newCode(unlucky.id, { createdAt: T0 + 10 }), id: taken.id },
      ];
      const outcomes = await Promise.allSettled(
        calls.map((code) => store.codes.issue(code, 3, issueAudit(code.userId))),
      );
      expect(outcomes.at(-1)?.status).toBe('rejected');
      expect(outcomes.slice(0, -1).every((outcome) => outcome.status === 'fulfilled')).toBe(true);
      const issuedOf = (userId: string) =>
        calls.filter(
          (code, index) =>
            code.userId === userId && outcomes[index]?.status === 'fulfilled' && outcomes[index].value.issued,
        ).length;
      // The holder already held one code: two more fit under 3.
      expect(issuedOf(holder.id)).toBe(2);
      for (const user of others) expect(issuedOf(user.id)).toBe(3);
      for (const user of users) {
        expect(await store.codes.countActive(user.id, T0 + 20)).toBe(3);
        // One entry per code the user holds (the holder's earlier code included).
        expect(await store.audit.list({ userId: user.id, event: 'code.issued' })).toHaveLength(3);
      }
      expect(await store.codes.countActive(unlucky.id, T0 + 20)).toBe(0);
      expect(await store.audit.list({ userId: unlucky.id, event: 'code.issued' })).toHaveLength(0);
    });

    test(`issues exactly ${MAX_UNUSED} of ${CALLS} concurrent codes for one user`, async (fixture) => {
      const user = await fixture.addUser();
      await concurrentIssues(fixture, [fixture.store], user.id);
    });

    test('gives a single-use code to exactly one of 20 concurrent consumers', async (fixture) => {
      const user = await fixture.addUser();
      const code = await fixture.issue(user.id, { uses: 1 });
      await concurrentConsumes(fixture, [fixture.store], code.id);
    });

    if (kind === 'postgres') {
      test(`issues exactly ${MAX_UNUSED} codes when ${CALLS} concurrent calls span two instances`, async (fixture) => {
        const { store, expect } = fixture;
        const user = await fixture.addUser();
        const second = await fixture.openSecondInstance();
        try {
          await concurrentIssues(fixture, [store, second], user.id);
          expect(await second.codes.countActive(user.id, T0 + CALLS)).toBe(MAX_UNUSED);
        } finally {
          await second.close();
        }
      });

      test('issues the codes of many users at once over two instances without a deadlock, each under its limit', async (fixture) => {
        const { store, expect } = fixture;
        const users = await Promise.all(Array.from({ length: 6 }, () => fixture.addUser()));
        const second = await fixture.openSecondInstance();
        try {
          // Each instance gathers the issues of a turn into one statement; users in opposite orders.
          const calls = users.flatMap((user, u) =>
            Array.from({ length: 8 }, (_, i) => ({
              code: newCode(user.id, { createdAt: T0 + i }),
              on: (u + i) % 2,
            })),
          );
          const outcomes = await Promise.all(
            calls.map(({ code, on }, index) =>
              (on === 0 ? store : second).codes.issue(
                code,
                MAX_UNUSED,
                issueAudit(code.userId, { call: index }),
              ),
            ),
          );
          for (const user of users) {
            const mine = outcomes.filter((_, index) => calls[index]!.code.userId === user.id);
            expect(mine.filter((outcome) => outcome.issued)).toHaveLength(MAX_UNUSED);
            expect(await second.codes.countActive(user.id, T0 + CALLS)).toBe(MAX_UNUSED);
          }
        } finally {
          await second.close();
        }
      });

      test('reads the sessions, policies and channels of one turn in one round trip each, and issues their codes in one', async (fixture) => {
        const { store, expect } = fixture;
        const users = await Promise.all(Array.from({ length: 5 }, () => fixture.addUser()));
        const ids = users.map((user) => user.id);
        const hashes = ids.map((id) => `round-trip-${id}`);
        for (const [index, id] of ids.entries()) {
          await store.sessions.create({ idHash: hashes[index]!, userId: id, createdAt: T0, lastSeenAt: T0 });
        }
        // Other tests run beside this one: only the queries that name these users count.
        const recording = recordPostgresQueries();
        try {
          await Promise.all(hashes.map((hash) => store.sessions.find(hash)));
          await Promise.all(ids.map((id) => store.groups.findPolicyOfUser(id, 'codes')));
          await Promise.all(ids.map((id) => store.channels.listOfUser(id)));
          await Promise.all(ids.map((id) => store.codes.issue(newCode(id), 3, issueAudit(id))));
        } finally {
          recording.stop();
        }
        const queries = recording.queries.filter(({ values }) =>
          ids.some((id) => JSON.stringify(values ?? null).includes(id)),
        );
        expect(queries).toHaveLength(4);
      });

      test('gives a single-use code to exactly one consumer across two instances', async (fixture) => {
        const user = await fixture.addUser();
        const code = await fixture.issue(user.id, { uses: 1 });
        const second = await fixture.openSecondInstance();
        try {
          await concurrentConsumes(fixture, [fixture.store, second], code.id);
        } finally {
          await second.close();
        }
      });
    }
  });

  describe.concurrent('sessions', () => {
    async function addSession(
      store: Store,
      userId: string,
      createdAt: number,
      lastSeenAt = createdAt,
    ): Promise<string> {
      const idHash = newId();
      await store.sessions.create({ idHash, userId, createdAt, lastSeenAt });
      return idHash;
    }

    test("finds a session with the user's policies of two categories: in the same statement on PostgreSQL, left to the caller on the embedded store", async ({
      store,
      expect,
      addUser,
    }) => {
      const user = await addUser();
      const low = newId();
      const high = newId();
      for (const [id, priority] of [
        [low, 1],
        [high, 9],
      ] as const) {
        await store.groups.create({ id, name: `session-policies-${id}`, priority });
        await store.groups.addMember(id, user.id);
      }
      await store.groups.setPolicy(low, 'first', { from: 'low' });
      await store.groups.setPolicy(high, 'first', { from: 'high' });
      await store.groups.setPolicy(low, 'second', { from: 'low', second: true });
      // Another user in another group, read in the same turn: each session gets its own user's.
      const other = await addUser();
      const others = newId();
      await store.groups.create({ id: others, name: `session-policies-${others}`, priority: 50 });
      await store.groups.addMember(others, other.id);
      await store.groups.setPolicy(others, 'first', { from: 'other' });
      const sessions = await Promise.all([
        addSession(store, user.id, T0),
        addSession(store, other.id, T0 + 1),
        addSession(store, user.id, T0 + 2),
      ]);
      const recording = recordPostgresQueries();
      let found: Awaited<ReturnType<typeof store.sessions.findWithPolicies>>[];
      try {
        found = await Promise.all(
          sessions.map((idHash) => store.sessions.findWithPolicies(idHash, ['first', 'second'])),
        );
      } finally {
        recording.stop();
      }
      for (const [index, session] of found.entries()) {
        const plain = await store.sessions.find(sessions[index]!);
        expect(plain?.userId).toBe(index === 1 ? other.id : user.id);
        const policies =
          index === 1 ? [{ from: 'other' }, undefined] : [{ from: 'high' }, { from: 'low', second: true }];
        if (store.kind === 'postgres') expect(session).toEqual({ ...plain, policies });
        else expect(session).toEqual(plain);
      }
      if (store.kind === 'postgres') {
        expect(
          recording.queries.filter(({ values }) => JSON.stringify(values ?? null).includes(sessions[0])),
        ).toHaveLength(1);
        // None of a category, none of a user without groups, no session: each answered as such.
        const loner = await addUser();
        const lonerSession = await addSession(store, loner.id, T0);
        expect((await store.sessions.findWithPolicies(sessions[0], ['second', 'third']))?.policies).toEqual([
          { from: 'low', second: true },
          undefined,
        ]);
        expect((await store.sessions.findWithPolicies(lonerSession, ['first', 'second']))?.policies).toEqual([
          undefined,
          undefined,
        ]);
      }
      expect(await store.sessions.findWithPolicies(newId(), ['first', 'second'])).toBeUndefined();
    });

    test('creates and finds a session', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0, T0 + 5);
      const session = await store.sessions.find(idHash);
      expect(session).toEqual({
        idHash,
        userId: user.id,
        createdAt: T0,
        lastSeenAt: T0 + 5,
        endedAt: null,
        user: await store.users.findById(user.id),
      });
      expect(typeof session?.createdAt).toBe('number');
      expect(typeof session?.lastSeenAt).toBe('number');
      expect(await store.sessions.find(newId())).toBeUndefined();
    });

    test('moves last seen forward only', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0);
      await store.sessions.touch(idHash, T0 + 100);
      expect((await store.sessions.find(idHash))?.lastSeenAt).toBe(T0 + 100);
      await store.sessions.touch(idHash, T0 + 50);
      expect((await store.sessions.find(idHash))?.lastSeenAt).toBe(T0 + 100);
      await store.sessions.touch(idHash, T0 + 200);
      const session = await store.sessions.find(idHash);
      expect(session?.lastSeenAt).toBe(T0 + 200);
      expect(session?.createdAt).toBe(T0);
      await expect(store.sessions.touch(newId(), T0)).resolves.toBeUndefined();
    });

    test('ends a session once', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0);
      const other = await addSession(store, user.id, T0);
      await store.sessions.end(idHash, T0 + 10);
      const ended = await store.sessions.find(idHash);
      expect(ended?.endedAt).toBe(T0 + 10);
      expect(typeof ended?.endedAt).toBe('number');
      await store.sessions.end(idHash, T0 + 20);
      expect((await store.sessions.find(idHash))?.endedAt).toBe(T0 + 10);
      expect((await store.sessions.find(other))?.endedAt).toBeNull();
    });

    test('purges ended and idle sessions and keeps live ones', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const ended = await addSession(store, user.id, T0, T0 + 10);
      await store.sessions.end(ended, T0 + 20);
      const idle = await addSession(store, user.id, T0, T0 + 30);
      const live = await addSession(store, user.id, T0, T0 + 30);
      await store.sessions.touch(live, T0 + 150);

      const cutoffs = cutoffsAt(T0 + 100, {
        sessionsEndedBefore: T0 + 100,
        sessionsLastSeenBefore: T0 + 100,
      });
      const purged = await store.retention.removeBatch('sessions', cutoffs, 1000);
      expect(purged).toBe(2);
      expect(typeof purged).toBe('number');
      expect(await store.sessions.find(ended)).toBeUndefined();
      expect(await store.sessions.find(idle)).toBeUndefined();
      expect(await store.sessions.find(live)).toMatchObject({ lastSeenAt: T0 + 150, endedAt: null });
      expect(await store.retention.removeBatch('sessions', cutoffs, 1000)).toBe(0);
      // Started before the absolute limit: gone however recently it was seen.
      expect(
        await store.retention.removeBatch('sessions', { ...cutoffs, sessionsStartedBefore: T0 + 1 }, 1000),
      ).toBe(1);
    });

    test('removes the sessions with the user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const idHash = await addSession(store, user.id, T0);
      await store.users.remove(user.id);
      expect(await store.sessions.find(idHash)).toBeUndefined();
    });
  });

  describe.concurrent('retention', () => {
    test('removes audit entries and outbox messages older than their cutoff, in batches', async ({
      store,
      expect,
    }) => {
      for (let index = 0; index < 25; index += 1) {
        await store.audit.append({ event: 'system.start', details: { index } }, T0 + index);
        await store.outbox.add({
          id: newId(),
          createdAt: T0 + index,
          channelType: 'email',
          userId: null,
          idempotencyKey: `key-${index}`,
          sealed: 'sealed',
        });
      }
      // Kept for ever while the cutoff is null.
      expect(await store.retention.count('audit', cutoffsAt(T0 + 1_000_000))).toBe(0);
      expect(await store.retention.removeBatch('outbox', cutoffsAt(T0 + 1_000_000), 10)).toBe(0);
      const cutoffs = cutoffsAt(T0 + 100, { auditBefore: T0 + 20, outboxBefore: T0 + 15 });
      expect(await store.retention.count('audit', cutoffs)).toBe(20);
      expect(await store.retention.count('outbox', cutoffs)).toBe(15);
      expect(await store.retention.removeBatch('audit', cutoffs, 8)).toBe(8);
      expect(await store.retention.removeBatch('audit', cutoffs, 8)).toBe(8);
      expect(await store.retention.removeBatch('audit', cutoffs, 8)).toBe(4);
      expect(await store.retention.removeBatch('outbox', cutoffs, 100)).toBe(15);
      const kept = await store.audit.list({ limit: 100 });
      expect(kept.map((entry) => entry.at).sort()).toEqual(
        Array.from({ length: 5 }, (_, index) => T0 + 20 + index),
      );
      expect(await store.outbox.list(100)).toHaveLength(10);
    });

    test('removes forgotten sign-in failures and ended counters, never a lock that holds', async ({
      store,
      expect,
    }) => {
      await store.signinFailures.reserve(
        [{ subject: 'old', max: 5, windowMs: 60_000, lockMsAt: () => 60_000 }],
        T0,
      );
      await store.signinFailures.reserve(
        [{ subject: 'recent', max: 5, windowMs: 60_000, lockMsAt: () => 60_000 }],
        T0 + 50,
      );
      await store.rateCounters.take([{ subject: 'send:user:a', max: 3, windowMs: 10 }], T0);
      await store.rateCounters.take([{ subject: 'send:user:b', max: 3, windowMs: 1000 }], T0);
      const cutoffs = cutoffsAt(T0 + 100, { signinFailuresBefore: T0 + 10 });
      expect(await store.retention.removeBatch('signinFailures', cutoffs, 100)).toBe(1);
      expect(await store.signinFailures.find('old')).toBeUndefined();
      expect(await store.signinFailures.find('recent')).toBeDefined();
      expect(await store.retention.removeBatch('rateCounters', cutoffs, 100)).toBe(1);
    });

    test('gives the purge lease to exactly one of many holders at once, across two instances', async ({
      store,
      expect,
      openSecondInstance,
    }) => {
      const second = await openSecondInstance();
      try {
        const takes = await Promise.all(
          Array.from({ length: 12 }, (_, index) =>
            (index % 2 === 0 ? store : second).leases.take('purge', `holder-${index}`, T0, T0 + 1000),
          ),
        );
        expect(takes.filter(Boolean)).toHaveLength(1);
        const holder = `holder-${takes.indexOf(true)}`;
        expect(await second.leases.find('purge')).toEqual({ holder, until: T0 + 1000 });
        // Its holder extends it; nobody else gets it until it runs out or is given back.
        expect(await store.leases.take('purge', holder, T0 + 500, T0 + 2000)).toBe(true);
        expect(await second.leases.take('purge', 'late', T0 + 1500, T0 + 3000)).toBe(false);
        expect(await second.leases.take('purge', 'late', T0 + 2000, T0 + 3000)).toBe(true);
        await store.leases.release('purge', holder);
        expect(await store.leases.find('purge')).toEqual({ holder: 'late', until: T0 + 3000 });
        await second.leases.release('purge', 'late');
        expect(await store.leases.find('purge')).toBeUndefined();
      } finally {
        await second.close();
      }
    });
  });

  describe.concurrent('branding', () => {
    const defaults: BrandingEntry[] = [
      { name: 'title', type: 'text', value: 'Emergency Access', isDefault: true },
      { name: 'logo', type: 'image', value: 'data:image/png;base64,AAAA', isDefault: true },
      { name: 'style', type: 'css', value: 'body { color: black; }', isDefault: true },
    ];
    const byName = (entries: BrandingEntry[]): BrandingEntry[] =>
      [...entries].sort((a, b) => (a.name < b.name ? -1 : 1));

    test('adds missing entries and keeps what an operator changed', async ({ store, expect }) => {
      expect(await store.branding.list()).toEqual([]);
      await store.branding.ensure(defaults);
      expect(await store.branding.list()).toEqual(byName(defaults));

      const changed: BrandingEntry = { name: 'title', type: 'text', value: 'Our Access', isDefault: false };
      await store.branding.set(changed);

      const footer: BrandingEntry = { name: 'footer', type: 'html', value: '<p>Help</p>', isDefault: true };
      await store.branding.ensure([...defaults, footer]);
      expect(await store.branding.list()).toEqual(byName([changed, defaults[1]!, defaults[2]!, footer]));

      await expect(store.branding.ensure([])).resolves.toBeUndefined();
      expect(await store.branding.list()).toHaveLength(4);
    });

    test('upserts on set', async ({ store, expect }) => {
      const entry: BrandingEntry = { name: 'notice', type: 'html', value: '<b>1</b>', isDefault: false };
      await store.branding.set(entry);
      expect(await store.branding.list()).toEqual([entry]);
      const replaced: BrandingEntry = { name: 'notice', type: 'text', value: 'plain', isDefault: true };
      await store.branding.set(replaced);
      expect(await store.branding.list()).toEqual([replaced]);
    });
  });

  describe.concurrent('catalogs', () => {
    test('sets languages with an upsert and lists them by code', async ({ store, expect }) => {
      expect(await store.catalogs.listLanguages()).toEqual([]);
      await store.catalogs.setLanguage('en', 'English');
      await store.catalogs.setLanguage('de', 'Deutsch');
      await store.catalogs.setLanguage('en', 'English (US)');
      expect(await store.catalogs.listLanguages()).toEqual([
        { code: 'de', name: 'Deutsch' },
        { code: 'en', name: 'English (US)' },
      ]);
    });

    test('adds only missing keys without overwrite, replaces with overwrite', async ({ store, expect }) => {
      await store.catalogs.setLanguage('en', 'English');
      await store.catalogs.setLanguage('de', 'Deutsch');
      await store.catalogs.putMessages('en', { hello: 'Hello', bye: 'Bye' }, { overwrite: false });
      await store.catalogs.putMessages('de', { hello: 'Hallo' }, { overwrite: false });

      await store.catalogs.putMessages(
        'en',
        { hello: 'Hi (shipped)', thanks: 'Thanks' },
        { overwrite: false },
      );
      expect(await store.catalogs.messages('en')).toEqual({ hello: 'Hello', bye: 'Bye', thanks: 'Thanks' });

      await store.catalogs.putMessages('en', { hello: 'Howdy', new: 'New' }, { overwrite: true });
      expect(await store.catalogs.messages('en')).toEqual({
        hello: 'Howdy',
        bye: 'Bye',
        thanks: 'Thanks',
        new: 'New',
      });
      expect(await store.catalogs.messages('de')).toEqual({ hello: 'Hallo' });
      await expect(store.catalogs.putMessages('en', {}, { overwrite: true })).resolves.toBeUndefined();
    });

    test('keeps every text as written: quotes, backslashes, new lines, other scripts, placeholders', async ({
      store,
      expect,
    }) => {
      await store.catalogs.setLanguage('ar', 'العربية');
      const texts = {
        'quote.and.slash': 'He said "stop" \\ then left',
        'two.lines': 'first\nsecond\ttabbed',
        'other.scripts': 'رمز الطوارئ — 緊急コード — ¿listo?',
        placeholder: 'Hello {name}, {count, plural, one {# code} other {# codes}}',
        'json.looking': '{"error": 0, "result": null}',
        empty: '',
      };
      await store.catalogs.putMessages('ar', texts, { overwrite: false });
      expect(await store.catalogs.messages('ar')).toEqual(texts);
    });

    test('writes more than one batch of keys in one call', async ({ store, expect }) => {
      await store.catalogs.setLanguage('en', 'English');
      const many = Object.fromEntries(Array.from({ length: 450 }, (_, i) => [`key.${i}`, `text ${i}`]));
      await store.catalogs.putMessages('en', many, { overwrite: false });
      expect(await store.catalogs.messages('en')).toEqual(many);

      const changed = Object.fromEntries(Object.keys(many).map((key) => [key, `${many[key]} v2`]));
      await store.catalogs.putMessages('en', changed, { overwrite: false });
      expect(await store.catalogs.messages('en')).toEqual(many);
      await store.catalogs.putMessages('en', changed, { overwrite: true });
      expect(await store.catalogs.messages('en')).toEqual(changed);
    });

    test('answers no messages for an unknown language', async ({ store, expect }) => {
      expect(await store.catalogs.messages('xx')).toEqual({});
    });
  });

  describe.concurrent('audit', () => {
    test('appends entries and lists them newest first', async ({ store, expect, addUser }) => {
      const user = await addUser();
      await store.audit.append(
        { event: 'signin.succeeded', userId: user.id, actor: 'self', clientAddress: '::1' },
        T0 + 1,
      );
      await store.audit.append({ event: 'system.start' }, T0 + 3);
      await store.audit.append({ event: 'code.issued', userId: user.id, details: { n: 1 } }, T0 + 2);
      const entries = await store.audit.list({});
      expect(entries.map((entry) => entry.at)).toEqual([T0 + 3, T0 + 2, T0 + 1]);
      expect(entries[2]).toEqual({
        id: expect.any(String),
        at: T0 + 1,
        event: 'signin.succeeded',
        userId: user.id,
        actor: 'self',
        clientAddress: '::1',
        details: {},
      });
      expect(entries[0]).toMatchObject({
        event: 'system.start',
        userId: null,
        actor: null,
        clientAddress: null,
      });
      for (const entry of entries) expect(typeof entry.at).toBe('number');
      expect(new Set(entries.map((entry) => entry.id)).size).toBe(3);
    });

    test('filters by user, event, time and count', async ({ store, expect, addUser }) => {
      const alice = await addUser();
      const bob = await addUser();
      await store.audit.append({ event: 'signin.succeeded', userId: alice.id }, T0 + 1);
      await store.audit.append({ event: 'code.issued', userId: alice.id }, T0 + 2);
      await store.audit.append({ event: 'signin.succeeded', userId: bob.id }, T0 + 3);
      await store.audit.append({ event: 'code.issued', userId: alice.id }, T0 + 4);
      await store.audit.append({ event: 'signout', userId: alice.id }, T0 + 5);

      const ats = async (filter: AuditFilter): Promise<number[]> =>
        (await store.audit.list(filter)).map((entry) => entry.at - T0);
      expect(await ats({ userId: alice.id })).toEqual([5, 4, 2, 1]);
      expect(await ats({ userId: bob.id })).toEqual([3]);
      expect(await ats({ event: 'signin.succeeded' })).toEqual([3, 1]);
      expect(await ats({ since: T0 + 3 })).toEqual([5, 4, 3]);
      expect(await ats({ limit: 2 })).toEqual([5, 4]);
      expect(await ats({ userId: alice.id, event: 'code.issued', since: T0 + 3 })).toEqual([4]);
      expect(await ats({ userId: alice.id, limit: 3, since: T0 + 2 })).toEqual([5, 4, 2]);
      expect(await ats({ event: 'nothing' })).toEqual([]);
    });

    test('keeps details as an object', async ({ store, expect }) => {
      const details = {
        text: 'ä ✓ "quoted"',
        number: 42.5,
        flag: false,
        none: null,
        list: [1, 'two', { three: 3 }],
        nested: { deeper: { value: 'x' } },
      };
      await store.audit.append({ event: 'system.start', details }, T0);
      const [entry] = await store.audit.list({});
      expect(entry?.details).toEqual(details);
    });
  });

  describe.concurrent('outbox', () => {
    const message = (idempotencyKey: string, createdAt: number) => ({
      id: newId(),
      createdAt,
      channelType: 'smtp',
      userId: null as string | null,
      idempotencyKey,
      sealed: `sealed-${idempotencyKey}-${createdAt}`,
    });

    test('refuses a second message with the same idempotency key', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const first = { ...message('k1', T0), userId: user.id };
      expect(await store.outbox.add(first)).toBe(true);
      expect(await store.outbox.add(message('k1', T0 + 1))).toBe(false);
      expect(await store.outbox.list(10)).toEqual([first]);
      expect(await store.outbox.add(message('k2', T0 + 2))).toBe(true);
      expect(await store.outbox.list(10)).toHaveLength(2);
    });

    test('lists newest first up to the limit', async ({ store, expect }) => {
      const a = message('a', T0 + 1);
      const b = message('b', T0 + 3);
      const c = message('c', T0 + 2);
      for (const m of [a, b, c]) expect(await store.outbox.add(m)).toBe(true);
      const listed = await store.outbox.list(2);
      expect(listed).toEqual([b, c]);
      expect(typeof listed[0]?.createdAt).toBe('number');
      expect(await store.outbox.list(10)).toEqual([b, c, a]);
      // Sealed again (a rotation) only while it still holds what was read.
      expect(await store.outbox.reseal(a.id, 'not what it holds', 'x')).toBe(false);
      expect(await store.outbox.reseal(a.id, a.sealed, 'resealed')).toBe(true);
      expect((await store.outbox.list(10)).find((message) => message.id === a.id)?.sealed).toBe('resealed');
    });
  });

  describe.concurrent('service keys', () => {
    test('creates, finds and lists keys with their scopes', async ({ store, expect }) => {
      const reader = {
        id: newId(),
        name: 'reader',
        keyHash: 'hash-r',
        scopes: ['users:read', 'audit:read'],
        createdAt: T0,
        revokedAt: null,
        hashedAt: T0,
      };
      const admin = {
        id: newId(),
        name: 'admin',
        keyHash: 'hash-a',
        scopes: ['codes:issue'],
        createdAt: T0 + 1,
        revokedAt: null,
        hashedAt: T0 + 1,
      };
      const none = {
        id: newId(),
        name: 'none',
        keyHash: 'hash-n',
        scopes: [],
        createdAt: T0 + 2,
        revokedAt: null,
        hashedAt: T0 + 2,
      };
      for (const key of [reader, admin, none]) await store.serviceKeys.create(key);

      const found = await store.serviceKeys.findById(reader.id);
      expect(found).toEqual(reader);
      expect(typeof found?.createdAt).toBe('number');
      expect(await store.serviceKeys.findById(none.id)).toEqual(none);
      expect(await store.serviceKeys.findById(newId())).toBeUndefined();
      expect(await store.serviceKeys.list()).toEqual([admin, none, reader]);
      await expect(store.serviceKeys.create({ ...admin, id: newId() })).rejects.toThrow();
    });

    test('replaces a hash only when it is still the one read (a re-hash after a rotation)', async ({
      store,
      expect,
    }) => {
      const key = {
        id: newId(),
        name: 'rehashed',
        keyHash: 'old-hash',
        scopes: ['verify'],
        createdAt: T0,
        revokedAt: null,
        hashedAt: T0,
      };
      await store.serviceKeys.create(key);
      await store.serviceKeys.rehash(key.id, 'other-hash', 'lost', T0 + 5);
      expect(await store.serviceKeys.findById(key.id)).toEqual(key);
      await store.serviceKeys.rehash(key.id, 'old-hash', 'new-hash', T0 + 10);
      expect(await store.serviceKeys.findById(key.id)).toEqual({
        ...key,
        keyHash: 'new-hash',
        hashedAt: T0 + 10,
      });
    });

    test('revokes a key once', async ({ store, expect }) => {
      const key = {
        id: newId(),
        name: 'k',
        keyHash: 'h',
        scopes: ['a'],
        createdAt: T0,
        revokedAt: null,
        hashedAt: T0,
      };
      const other = { ...key, id: newId(), name: 'other' };
      await store.serviceKeys.create(key);
      await store.serviceKeys.create(other);
      expect(await store.serviceKeys.revoke(key.id, T0 + 10)).toBe(true);
      const revoked = await store.serviceKeys.findById(key.id);
      expect(revoked).toEqual({ ...key, revokedAt: T0 + 10 });
      expect(typeof revoked?.revokedAt).toBe('number');
      expect(await store.serviceKeys.revoke(key.id, T0 + 20)).toBe(false);
      expect((await store.serviceKeys.findById(key.id))?.revokedAt).toBe(T0 + 10);
      expect(await store.serviceKeys.revoke(newId(), T0)).toBe(false);
      expect((await store.serviceKeys.findById(other.id))?.revokedAt).toBeNull();
    });

    test('reads a key with the user a verification names, by id or by name, the reads of one turn in one statement on PostgreSQL', async (fixture) => {
      const { store, expect } = fixture;
      const key = {
        id: newId(),
        name: `with-user-${newId()}`,
        keyHash: 'hash-w',
        scopes: ['verify'],
        createdAt: T0,
        revokedAt: T0 + 3,
        hashedAt: T0 + 1,
      };
      await store.serviceKeys.create(key);
      const added = await fixture.addUser({ fullName: 'Read Together', locale: 'de' });
      const user = await store.users.findById(added.id);
      expect(user).toBeDefined();
      expect(await store.serviceKeys.findWithUser(key.id, { id: added.id })).toEqual({
        serviceKey: key,
        user,
      });
      expect(await store.serviceKeys.findWithUser(key.id, { username: added.username })).toEqual({
        serviceKey: key,
        user,
      });
      const withUser = await store.serviceKeys.findWithUser(key.id, { id: added.id });
      expect(typeof withUser.serviceKey?.revokedAt).toBe('number');
      expect(typeof withUser.user?.createdAt).toBe('number');
      expect(withUser.user?.disabled).toBe(false);
      // Each part is found or not on its own.
      expect(await store.serviceKeys.findWithUser(newId(), { id: added.id })).toEqual({
        serviceKey: undefined,
        user,
      });
      expect(await store.serviceKeys.findWithUser(key.id, { id: newId() })).toEqual({
        serviceKey: key,
        user: undefined,
      });
      expect(
        await store.serviceKeys.findWithUser(key.id, { username: usernameOrThrow(`nobody-${newId()}`) }),
      ).toEqual({ serviceKey: key, user: undefined });
      await store.users.update(added.id, { disabled: true });
      expect((await store.serviceKeys.findWithUser(key.id, { id: added.id })).user?.disabled).toBe(true);

      // Reads of one turn, each answered its own, in one statement on PostgreSQL.
      const others = await Promise.all(Array.from({ length: 4 }, () => fixture.addUser()));
      const recording = recordPostgresQueries();
      let reads: Awaited<ReturnType<typeof store.serviceKeys.findWithUser>>[];
      try {
        reads = await Promise.all(
          others.map((other, index) =>
            store.serviceKeys.findWithUser(
              index % 2 === 0 ? key.id : newId(),
              index < 2 ? { id: other.id } : { username: other.username },
            ),
          ),
        );
      } finally {
        recording.stop();
      }
      expect(reads.map((read) => [read.serviceKey?.id, read.user?.id])).toEqual(
        others.map((other, index) => [index % 2 === 0 ? key.id : undefined, other.id]),
      );
      if (store.kind === 'postgres') {
        const mine = recording.queries.filter(({ values }) =>
          others.some(
            (other) =>
              JSON.stringify(values ?? null).includes(other.id) ||
              JSON.stringify(values ?? null).includes(other.username),
          ),
        );
        expect(mine).toHaveLength(1);
      }
    });
  });

  describe.concurrent('meta', () => {
    test('gets and overwrites values', async ({ store, expect }) => {
      expect(await store.meta.get('schema.note')).toBeUndefined();
      await store.meta.set('schema.note', 'one');
      await store.meta.set('other', 'x');
      expect(await store.meta.get('schema.note')).toBe('one');
      await store.meta.set('schema.note', 'two');
      expect(await store.meta.get('schema.note')).toBe('two');
      expect(await store.meta.get('other')).toBe('x');
    });
  });

  describe.concurrent('migrations', () => {
    test('opens an already-migrated store again and keeps its data', async ({
      store,
      expect,
      addUser,
      issue,
      openSecondInstance,
    }) => {
      const user = await addUser({ username: usernameOrThrow('kept') });
      await store.meta.set('marker', 'before');
      await issue(user.id);

      // A second instance while the first is open.
      const second = await openSecondInstance();
      try {
        expect((await second.users.findByUsername(usernameOrThrow('kept')))?.id).toBe(user.id);
        expect(await second.meta.get('marker')).toBe('before');
        await second.meta.set('marker', 'from-second');
      } finally {
        await second.close();
      }
      expect(await store.meta.get('marker')).toBe('from-second');

      // Closed and opened again, as after a restart.
      await store.close();
      const reopened = await openSecondInstance();
      try {
        expect(await reopened.users.count()).toBe(1);
        expect((await reopened.users.findById(user.id))?.username).toBe('kept');
        expect(await reopened.meta.get('marker')).toBe('from-second');
        expect(await reopened.codes.countActive(user.id, T0)).toBe(1);
      } finally {
        await reopened.close();
      }
    });
  });
}
