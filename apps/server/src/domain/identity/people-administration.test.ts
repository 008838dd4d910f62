import { consoleCallerOf } from '../../testing/identity.js';
import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { ConsoleRole, Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import type { ChannelProofs } from '../channels/channel-proof.js';
import { Groups } from './groups.js';
import { PasswordLinks } from './password-links.js';
import { PeopleAdministration } from './people-administration.js';
import { People } from './people.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const HOUR = 3_600_000;

/**
 * The console's People screens over the test's store, with the identity module's use cases they
 * are built with. None of these tests proves a channel: the proofs are those of channel-proof.ts,
 * tested in people-administration-channels.test.ts.
 */
function administrationOf(store: Store) {
  const now = () => T0;
  const people = new People(store, now, null);
  return new PeopleAdministration({
    store,
    people,
    groups: new Groups(store, now),
    passwordLinks: new PasswordLinks({
      store,
      people,
      keys: [Buffer.alloc(32, 5)],
      linkMs: 24 * HOUR,
      loginUrl: 'https://dea.example.org/login/',
      hashPassword: (password) => Promise.resolve(`hashed:${password}`),
      now,
    }),
    channelProofs: {} as ChannelProofs,
    now,
  });
}

/** A signed-in console account past its passkey, as the route hands it over. */
const callerOf = (role: ConsoleRole, scope: readonly string[] | null = null, name = 'root'): ConsoleCaller =>
  consoleCallerOf(role, T0, { scope, name });

const ADMIN = callerOf('admin');

async function addUser(
  store: Store,
  username: string,
  source: UserSource = 'local',
  fullName = `Full ${username}`,
): Promise<string> {
  const id = newId(T0);
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: 'hash-0',
    fullName,
    locale: 'en',
    createdAt: T0,
    source,
    externalId: source === 'local' ? null : `ext-${username}`,
  });
  return id;
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each(STORE_KINDS)("the console's People on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the list finds a user by any spelling of their name or by a part of their full name',
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const nina = await addUser(store, 'nina.novak', 'local', 'Nina Novak');
      await addUser(store, 'otto', 'scim', 'Otto Berg');
      const names = async (query: string) =>
        (await administration.list(ADMIN, query)).users.map((user) => user.username);
      expect(await names('NINA.Novak')).toEqual(['nina.novak']);
      expect(await names('  novak ')).toEqual(['nina.novak']);
      expect(await names('berg')).toEqual(['otto']);
      expect(await names('nobody')).toEqual([]);
      expect((await names('')).sort()).toEqual(['nina.novak', 'otto']);
      expect((await administration.list(ADMIN, 'nina')).users).toEqual([
        { id: nina, username: 'nina.novak', fullName: 'Nina Novak', source: 'local', disabled: false },
      ]);
    },
  );

  storeTest.concurrent(
    'the list answers at most 200 users: the search narrows it',
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      await store.transaction(async (tx) => {
        for (let index = 0; index < 201; index += 1) await addUser(tx, `user-${index}`);
      });
      expect((await administration.list(ADMIN)).users).toHaveLength(200);
      expect((await administration.list(ADMIN, 'user-200')).users).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "a person's view: what the console may change by their source, their groups, masked channels",
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const groups = new Groups(store, () => T0);
      const staff = await groups.create({ name: 'Staff', priority: 0 }, { door: 'local', actor: 'cli' });
      await groups.create({ name: 'Execs', priority: 0 }, { door: 'scim', actor: 'scim:idp' });
      const ann = await addUser(store, 'ann');
      await groups.changeMember(staff, ann, true, { door: 'local', actor: 'cli' });
      await store.channels.set({
        id: 'ch-1',
        userId: ann,
        key: 'mobile',
        address: '+491705550112',
        createdAt: T0,
      });
      const view = await administration.person(ADMIN, ann);
      expect(view).toMatchObject({
        username: 'ann',
        source: 'local',
        createdAt: new Date(T0).toISOString(),
        lastLoginAt: null,
        editable: { fullName: true, password: true, channels: true, removal: true },
        channels: [{ key: 'mobile', source: 'local', origin: 'source' }],
      });
      expect(JSON.stringify(view)).not.toContain('5550112');
      expect(view.groups.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
        expect.objectContaining({ name: 'Execs', owner: 'scim', member: false }),
        expect.objectContaining({ name: 'Staff', owner: 'local', member: true }),
      ]);

      const editable = async (source: UserSource) =>
        (await administration.person(ADMIN, await addUser(store, `${source}-user`, source))).editable;
      expect(await editable('ldap')).toEqual({
        fullName: false,
        locale: true,
        timeZone: true,
        password: false,
        disabled: true,
        removal: true,
        sessions: true,
        channels: false,
      });
      expect(await editable('scim')).toMatchObject({
        fullName: false,
        locale: false,
        password: true,
        channels: false,
      });
      expect(await editable('import')).toMatchObject({ fullName: false, password: true, disabled: true });
      await expect(administration.person(ADMIN, newId(T0))).rejects.toMatchObject({ kind: 'missing' });
    },
  );

  storeTest.concurrent(
    "a person's view shows only the console's proofs under way: not the person's own, not one expired or out of tries",
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const ann = await addUser(store, 'ann');
      const proof = (id: string, key: 'mobile' | 'email' | 'personalEmail' | 'telephone', more: object) =>
        store.channelProofs.start({
          id,
          userId: ann,
          key,
          address: key === 'mobile' || key === 'telephone' ? '+491705550161' : 'ann.private@example.org',
          origin: 'console',
          codeHash: 'hash',
          triesLeft: 3,
          createdAt: T0,
          expiresAt: T0 + 1,
          ...more,
        });
      await proof('pending', 'mobile', {});
      await proof('own', 'personalEmail', { origin: 'owner' });
      await proof('expired', 'email', { expiresAt: T0 });
      await proof('no-tries', 'telephone', { triesLeft: 0 });
      const { pendingChannels } = await administration.person(ADMIN, ann);
      expect(pendingChannels).toEqual([
        {
          key: 'mobile',
          to: expect.not.stringContaining('5550161'),
          proofId: 'pending',
          expiresAt: new Date(T0 + 1).toISOString(),
        },
      ]);
    },
  );

  storeTest.concurrent(
    'a user added in the console is local and audited with the administrator; a name taken is refused as invalid',
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const { id } = await administration.create(ADMIN, {
        username: 'Nina.Novak',
        fullName: 'Nina Novak',
        locale: 'de',
        timeZone: 'Europe/Berlin',
      });
      expect(await store.users.findById(id)).toMatchObject({
        username: 'nina.novak',
        source: 'local',
        locale: 'de',
        timeZone: 'Europe/Berlin',
      });
      expect(await store.audit.list({ userId: id })).toMatchObject([
        { event: 'user.created', actor: 'console:root', details: { username: 'nina.novak' } },
      ]);
      const taken = await refusalOf(administration.create(ADMIN, { username: 'nina.novak', fullName: 'N' }));
      expect(taken).toMatchObject({
        errorNumber: 2,
        kind: 'invalid',
        params: { detail: 'a user named "nina.novak" already exists' },
      });
      for (const input of [
        { username: 'x y', fullName: 'Space' },
        { username: 'mars', fullName: 'Mars', timeZone: 'Mars/Olympus' },
        { username: 'line', fullName: 'Line\nbreak' },
      ])
        expect(await refusalOf(administration.create(ADMIN, input)), input.username).toMatchObject({
          kind: 'invalid',
        });
      expect(await store.audit.list({ event: 'user.created' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "another source's part is refused as a conflict naming its owner, and nothing changes; what the console owns goes through",
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const sam = await addUser(store, 'sam', 'scim');
      const before = await store.users.findById(sam);
      const refused = await refusalOf(administration.update(ADMIN, sam, { fullName: 'Someone Else' }));
      expect(refused).toMatchObject({
        kind: 'conflict',
        params: { detail: "sam's full name comes from the identity provider (SCIM); change it there" },
      });
      expect(await store.users.findById(sam)).toEqual(before);
      const dirk = await addUser(store, 'dirk', 'ldap');
      expect(await refusalOf(administration.passwordLink(ADMIN, dirk))).toMatchObject({ kind: 'conflict' });
      expect(await store.audit.list({ limit: 10 })).toEqual([]);
      expect(await administration.update(ADMIN, dirk, { locale: 'fr', timeZone: null })).toEqual({
        changed: ['locale'],
        sessionsEnded: 0,
      });
      expect(await administration.disable(ADMIN, sam)).toEqual({ changed: ['disabled'], sessionsEnded: 0 });
    },
  );

  storeTest.concurrent(
    'each change of a user answers what changed and is audited with the administrator as actor',
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const ann = await addUser(store, 'ann');
      await store.sessions.create({ idHash: 'ann-1', userId: ann, createdAt: T0, lastSeenAt: T0 });
      expect(await administration.update(ADMIN, ann, { fullName: 'Ann B', timeZone: 'UTC' })).toEqual({
        changed: ['fullName', 'timeZone'],
        sessionsEnded: 0,
      });
      expect(await administration.endSessions(ADMIN, ann)).toEqual({
        changed: ['sessions'],
        sessionsEnded: 1,
      });
      expect(await administration.endSessions(ADMIN, ann)).toEqual({ changed: [], sessionsEnded: 0 });
      expect(await administration.disable(ADMIN, ann)).toEqual({ changed: ['disabled'], sessionsEnded: 0 });
      expect(await administration.disable(ADMIN, ann)).toEqual({ changed: [], sessionsEnded: 0 });
      expect(await administration.enable(ADMIN, ann)).toEqual({ changed: ['disabled'], sessionsEnded: 0 });
      const { url, expiresAt } = await administration.passwordLink(ADMIN, ann);
      expect(url).toMatch(/^https:\/\/dea\.example\.org\/login\/#reset=/);
      expect(expiresAt).toBe(new Date(T0 + 24 * HOUR).toISOString());
      expect(await administration.remove(ADMIN, ann)).toEqual({ changed: ['removal'], sessionsEnded: 0 });
      const entries = (await store.audit.list({ userId: ann, limit: 100 })).reverse();
      expect(entries.map((entry) => entry.event)).toEqual([
        'user.updated',
        'user.signed_out',
        'user.signed_out',
        'user.disabled',
        'user.enabled',
        'user.password_link_issued',
        'user.removed',
      ]);
      expect(new Set(entries.map((entry) => entry.actor))).toEqual(new Set(['console:root']));
    },
  );

  storeTest.concurrent(
    'a user who is not there is answered as missing, whatever the change',
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const gone = newId(T0);
      for (const change of [
        () => administration.update(ADMIN, gone, { fullName: 'X' }),
        () => administration.disable(ADMIN, gone),
        () => administration.enable(ADMIN, gone),
        () => administration.remove(ADMIN, gone),
        () => administration.endSessions(ADMIN, gone),
        () => administration.passwordLink(ADMIN, gone),
        () => administration.membership(ADMIN, gone, newId(T0), true),
      ])
        expect(await refusalOf(change())).toMatchObject({ kind: 'missing' });
    },
  );

  storeTest.concurrent(
    'a user joins and leaves a group of any owner through the console, each audited once; a group not there is missing',
    async ({ testStore: { store }, expect }) => {
      const administration = administrationOf(store);
      const groups = new Groups(store, () => T0);
      const execs = await groups.create({ name: 'Execs', priority: 0 }, { door: 'scim', actor: 'scim:idp' });
      const ann = await addUser(store, 'ann');
      expect(await administration.membership(ADMIN, ann, execs.id, true)).toEqual({
        changed: ['groups'],
        sessionsEnded: 0,
      });
      expect(await administration.membership(ADMIN, ann, execs.id, true)).toEqual({
        changed: [],
        sessionsEnded: 0,
      });
      expect(await administration.membership(ADMIN, ann, execs.id, false)).toEqual({
        changed: ['groups'],
        sessionsEnded: 0,
      });
      expect(
        (await store.audit.list({ userId: ann, limit: 10 })).map((entry) => [entry.event, entry.actor]),
      ).toEqual([
        ['group.member_removed', 'console:root'],
        ['group.member_added', 'console:root'],
      ]);
      expect(await refusalOf(administration.membership(ADMIN, ann, newId(T0), true))).toMatchObject({
        kind: 'missing',
      });
      expect(await store.groups.listOfUser(ann)).toEqual([]);
    },
  );
});
