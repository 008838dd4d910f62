import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { HashQueue } from '../../crypto/hash-queue.js';
import { sha256 } from '../../crypto/keyed-hash.js';
import { hashPassword } from '../../crypto/password-hash.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DomainError } from '../errors.js';
import { ConsoleAccounts } from '../identity/console-accounts.js';
import {
  type DirectoryAccountProblem,
  DirectoryUnavailableError,
  type PasswordCheck,
  type SourceRef,
  type SourceUser,
} from '../identity/user-directory.js';
import { SigninThrottle } from '../page/signin-throttle.js';
import { ConsoleAuth } from './console-auth.js';
import { ConsoleDirectory, type ConsoleDirectorySource } from './console-directory.js';
import { ConsoleEnrolment } from './console-enrolment.js';

const T0 = Date.UTC(2026, 11, 7, 13);
const MINUTE = 60_000;
const ADDRESS = '198.51.100.9';
const STAFF = 'cn=staff,ou=groups,dc=example,dc=org';
const AUDITORS = 'cn=auditors,ou=groups,dc=example,dc=org';
const VPN = 'cn=vpn,ou=groups,dc=example,dc=org';
const ROLES = new Map([
  [STAFF, { role: 'helpdesk' as const }],
  [AUDITORS, { role: 'auditor' as const, scope: ['Finance'] }],
]);
const REFRESH_MS = MINUTE;

interface Entry {
  password: string;
  externalId: string;
  fullName: string;
  groups: string[];
  disabled?: boolean;
  problem?: DirectoryAccountProblem;
}

/** The directory as the console asks it, in memory: its people by name, and whether it answers. */
class Directory implements ConsoleDirectorySource {
  readonly people = new Map<string, Entry>();
  answers = true;
  asked = { findUser: 0, groups: 0, decoys: 0 };

  private reachable() {
    if (!this.answers) throw new DirectoryUnavailableError('no directory server answered');
  }
  async findUser(name: string): Promise<SourceUser | undefined> {
    this.reachable();
    this.asked.findUser += 1;
    const entry = this.people.get(name.toLowerCase());
    return entry === undefined
      ? undefined
      : {
          ref: name.toLowerCase() as SourceRef,
          externalId: entry.externalId,
          username: name.toLowerCase(),
          fullName: entry.fullName,
          locale: undefined,
          timeZone: undefined,
          disabled: entry.disabled ?? false,
          channels: {},
          groups: [],
        };
  }
  async passwordCheck(ref: SourceRef, password: string): Promise<PasswordCheck> {
    this.reachable();
    const entry = this.people.get(ref);
    if (entry?.password !== password) return { kind: 'wrong' };
    return entry.problem === undefined
      ? { kind: 'right' }
      : { kind: 'account-problem', problem: entry.problem };
  }
  async decoyCheck(): Promise<void> {
    this.asked.decoys += 1;
  }
  async groupDnsOf(ref: SourceRef): Promise<string[]> {
    this.reachable();
    this.asked.groups += 1;
    return [...(this.people.get(ref)?.groups ?? [])];
  }
}

/** The console's sign-in with roles from the directory's groups, on a clock the test moves. */
function consoleOf(store: Store) {
  const clock = { at: T0 };
  const now = () => clock.at;
  const settings = {
    idleMs: 60 * MINUTE,
    passkeyFreshMs: 5 * MINUTE,
    consoleUrl: 'https://dea.example.org/admin/',
    enrolmentLinkMs: 60 * MINUTE,
    allowedAaguids: [],
  };
  const source = new Directory();
  source.people.set('alice', {
    password: 'alice pw',
    externalId: 'e-alice',
    fullName: 'Alice Archer',
    groups: [STAFF, VPN],
  });
  source.people.set('bob', { password: 'bob pw', externalId: 'e-bob', fullName: 'Bob', groups: [VPN] });
  const enrolment = new ConsoleEnrolment({ store, keys: [Buffer.alloc(32, 3)], settings, now });
  const accounts = new ConsoleAccounts({ store, enrolment, now });
  const directory = new ConsoleDirectory({
    store,
    accounts,
    source,
    settings: { roles: ROLES, roleRefreshMs: REFRESH_MS },
    now,
  });
  const auth = new ConsoleAuth({
    store,
    throttle: new SigninThrottle(
      store,
      {
        userLockAfter: 3,
        addressLockAfter: 50,
        windowMs: 15 * MINUTE,
        lockMs: 15 * MINUTE,
        slowdownMs: 0,
        slowdownMaxMs: 0,
      },
      Buffer.alloc(32, 4),
    ),
    hashQueue: new HashQueue(2, 20),
    decoyPasswordHash: () => hashPassword('decoy', 4),
    settings,
    enrolment,
    accounts,
    directory,
    now,
  });
  return {
    auth,
    accounts,
    directory,
    source,
    clock,
    /** The password step, then the session as its next request sees it. */
    async signIn(username: string, password: string) {
      const { sessionId } = await auth.password(username, password, ADDRESS);
      return { sessionId, request: () => auth.caller(sessionId, undefined, false) };
    },
    /** The refusal's reason as audited, and its catalog text. */
    async refusal(username: string, password: string) {
      const error = await auth.password(username, password, ADDRESS).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      if (!(error instanceof DomainError)) throw new Error(`${username} was not refused`);
      const [entry] = await store.audit.list({ event: 'console.signin_failed', limit: 1 });
      return { textKey: error.textKey, actor: entry?.actor, ...entry?.details };
    },
    events: (event: 'console.directory_role_changed' | 'console.account_created') =>
      store.audit.list({ event, limit: 100 }),
  };
}

describe.each(STORE_KINDS)("console sign-in with the directory's password and groups on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a member of a mapped group signs in with the directory password: the first sign-in makes a passwordless account with the group's role, once",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const first = await t.auth.password('Alice', 'alice pw', ADDRESS);
      expect(first).toMatchObject({
        next: 'register-passkey',
        account: { username: 'alice', role: 'helpdesk' },
      });
      expect(await store.console.findAccountByUsername(usernameOrThrow('alice'))).toMatchObject({
        role: 'helpdesk',
        scope: null,
        passwordHash: '',
        displayName: 'Alice Archer',
      });
      expect(await store.consoleDirectory.rolesAtOf(sha256(first.sessionId))).toBe(T0);
      await t.auth.password('alice', 'alice pw', ADDRESS);
      expect(await store.console.listAccounts()).toHaveLength(1);
      expect(await t.events('console.account_created')).toMatchObject([
        {
          actor: 'console:alice',
          details: { username: 'alice', role: 'helpdesk', source: 'directory', groups: [STAFF, VPN] },
        },
      ]);
      expect(JSON.stringify(await store.audit.list({ limit: 100 }))).not.toContain('alice pw');
    },
  );

  storeTest.concurrent(
    'each refusal is audited with its reason from the directory, and no account is made',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      t.source.people.set('dora', {
        password: 'dora pw',
        externalId: 'e-dora',
        fullName: 'Dora',
        groups: [STAFF],
        disabled: true,
      });
      t.source.people.set('eli', {
        password: 'eli pw',
        externalId: 'e-eli',
        fullName: 'Eli',
        groups: [STAFF],
        problem: 'password-expired',
      });
      const refused = { textKey: 'login.failed', source: 'directory' };
      expect(await t.refusal('nobody', 'x')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'not-in-directory',
      });
      // A name the directory does not have costs a password check all the same.
      expect(t.source.asked.decoys).toBe(1);
      expect(await t.refusal('alice', 'wrong')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'wrong-password',
      });
      expect(await t.refusal('dora', 'dora pw')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'disabled',
      });
      expect(await t.refusal('eli', 'eli pw')).toEqual({
        ...refused,
        actor: 'console:?',
        reason: 'directory-account',
        problem: 'password-expired',
      });
      // The right password, but no mapped group: told so, with the groups read in the trail.
      expect(await t.refusal('bob', 'bob pw')).toEqual({
        textKey: 'console.noDirectoryRole',
        source: 'directory',
        actor: 'console:?',
        reason: 'unmapped',
        groups: [VPN],
      });
      expect(await store.console.listAccounts()).toEqual([]);
    },
  );

  storeTest.concurrent(
    "a name taken by another directory entry's account, or an account disabled here, is refused",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.auth.password('alice', 'alice pw', ADDRESS);
      const account = await store.console.findAccountByUsername(usernameOrThrow('alice'));
      // The entry made again in the directory (a new id): a new person, who does not take the account.
      t.source.people.set('alice', { ...t.source.people.get('alice')!, externalId: 'e-alice-new' });
      expect(await t.refusal('alice', 'alice pw')).toMatchObject({
        textKey: 'login.failed',
        reason: 'username-taken',
        externalId: 'e-alice-new',
      });
      t.source.people.set('alice', { ...t.source.people.get('alice')!, externalId: 'e-alice' });
      await t.accounts.setDisabled(account!, true, 'cli');
      expect(await t.refusal('alice', 'alice pw')).toMatchObject({
        actor: 'console:alice',
        reason: 'disabled',
      });
    },
  );

  storeTest.concurrent(
    "a local console account keeps its own password: the directory's for its name opens nothing, and the directory is not asked",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      t.source.people.set('carol', {
        password: 'directory pw',
        externalId: 'e-carol',
        fullName: 'Carol',
        groups: [STAFF],
      });
      const input = {
        username: usernameOrThrow('carol'),
        displayName: 'Carol',
        role: 'admin' as const,
        scope: null,
      };
      await t.accounts.add({ ...input, passwordHash: await hashPassword('local pw', 4) }, 'cli');
      expect(await t.refusal('carol', 'directory pw')).toMatchObject({ reason: 'wrong-password' });
      expect((await t.auth.password('carol', 'local pw', ADDRESS)).account.role).toBe('admin');
      expect(t.source.asked.findUser).toBe(0);
    },
  );

  storeTest.concurrent(
    'a directory that cannot answer: unavailable with a retry, audited, and not counted against the name',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      t.source.answers = false;
      for (let attempt = 0; attempt < 4; attempt += 1)
        await expect(t.auth.password('alice', 'alice pw', ADDRESS)).rejects.toMatchObject({
          kind: 'unavailable',
          result: { retryAfterSeconds: 5 },
        });
      expect(await store.audit.list({ event: 'console.signin_failed' })).toHaveLength(4);
      expect((await store.audit.list({ event: 'console.signin_failed', limit: 1 }))[0]?.details).toEqual({
        reason: 'directory-unavailable',
      });
      t.source.answers = true;
      // Past the limit of three had they counted.
      expect((await t.auth.password('alice', 'alice pw', ADDRESS)).account.role).toBe('helpdesk');
    },
  );

  storeTest.concurrent(
    'eight first sign-ins at once make one account, and all of them sign in',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          t.auth.password('alice', 'alice pw', `198.51.100.${index + 1}`),
        ),
      );
      expect(new Set(answers.map((answer) => answer.account.id)).size).toBe(1);
      expect(await store.console.listAccounts()).toHaveLength(1);
      expect(await t.events('console.account_created')).toHaveLength(1);
    },
  );
});

describe.each(STORE_KINDS)("a directory person's role read again on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the groups are read again once the refresh time has passed, not before; a changed group changes the role and scope, audited',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const alice = await t.signIn('alice', 'alice pw');
      const read = t.source.asked.groups;
      t.source.people.get('alice')!.groups = [AUDITORS];
      t.clock.at = T0 + REFRESH_MS - 1;
      expect((await alice.request()).account.role).toBe('helpdesk');
      expect(t.source.asked.groups).toBe(read);
      t.clock.at = T0 + REFRESH_MS;
      expect((await alice.request()).account).toMatchObject({ role: 'auditor', scope: ['Finance'] });
      expect(await store.console.findAccountByUsername(usernameOrThrow('alice'))).toMatchObject({
        role: 'auditor',
        scope: ['Finance'],
      });
      expect(await t.events('console.directory_role_changed')).toMatchObject([
        {
          actor: 'console:alice',
          details: {
            from: 'helpdesk',
            to: 'auditor',
            fromScope: null,
            toScope: ['Finance'],
            groups: [AUDITORS],
          },
        },
      ]);
      // The next reading is a refresh time after this one.
      t.clock.at = T0 + 2 * REFRESH_MS - 1;
      await alice.request();
      expect(t.source.asked.groups).toBe(read + 1);
    },
  );

  storeTest.concurrent(
    'requests at once after the refresh is due share one reading of the groups',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const alice = await t.signIn('alice', 'alice pw');
      const read = t.source.asked.groups;
      t.clock.at = T0 + REFRESH_MS;
      const callers = await Promise.all(Array.from({ length: 5 }, () => alice.request()));
      expect(callers.map((caller) => caller.account.role)).toEqual(
        Array.from({ length: 5 }, () => 'helpdesk'),
      );
      expect(t.source.asked.groups).toBe(read + 1);
      // The same role: nothing changed, nothing audited.
      expect(await t.events('console.directory_role_changed')).toEqual([]);
    },
  );

  storeTest.concurrent(
    'no longer in a mapped group, disabled, or gone from the directory: the session ends at the next request after the refresh, audited with the reason',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      for (const name of ['fay', 'gil', 'hal', 'ivo'])
        t.source.people.set(name, {
          password: `${name} pw`,
          externalId: `e-${name}`,
          fullName: name,
          groups: [STAFF],
        });
      const sessions = await Promise.all(
        ['fay', 'gil', 'hal', 'ivo'].map((name) => t.signIn(name, `${name} pw`)),
      );
      t.source.people.get('fay')!.groups = [VPN];
      t.source.people.get('gil')!.disabled = true;
      t.source.people.delete('hal');
      // Made again under the same name: another person.
      t.source.people.set('ivo', { ...t.source.people.get('ivo')!, externalId: 'e-ivo-new' });
      t.clock.at = T0 + REFRESH_MS;
      for (const session of sessions) {
        await expect(session.request()).rejects.toMatchObject({ kind: 'unauthenticated' });
        expect((await store.console.findSession(sha256(session.sessionId)))?.endedAt).toBe(T0 + REFRESH_MS);
      }
      const ends = (await t.events('console.directory_role_changed')).map((entry) => [
        entry.actor,
        entry.details,
      ]);
      expect(ends).toEqual(
        expect.arrayContaining([
          ['console:fay', { from: 'helpdesk', to: null, reason: 'unmapped', groups: [VPN] }],
          ['console:gil', { from: 'helpdesk', to: null, reason: 'disabled' }],
          ['console:hal', { from: 'helpdesk', to: null, reason: 'not-in-directory' }],
          ['console:ivo', { from: 'helpdesk', to: null, reason: 'not-in-directory' }],
        ]),
      );
      expect(ends).toHaveLength(4);
    },
  );

  storeTest.concurrent(
    'a directory that cannot answer at the refresh ends nothing: the request is told to retry, the session goes on once it answers',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const alice = await t.signIn('alice', 'alice pw');
      t.clock.at = T0 + REFRESH_MS;
      t.source.answers = false;
      await expect(alice.request()).rejects.toMatchObject({ kind: 'unavailable' });
      expect((await store.console.findSession(sha256(alice.sessionId)))?.endedAt).toBeNull();
      t.source.answers = true;
      expect((await alice.request()).account.role).toBe('helpdesk');
    },
  );

  storeTest.concurrent(
    "a local account's session is not the directory's: its role is never read there",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const input = {
        username: usernameOrThrow('lou'),
        displayName: 'Lou',
        role: 'auditor' as const,
        scope: null,
      };
      await t.accounts.add({ ...input, passwordHash: await hashPassword('lou pw', 4) }, 'cli');
      const lou = await t.signIn('lou', 'lou pw');
      const { session, account } = await lou.request();
      t.clock.at = T0 + 10 * REFRESH_MS;
      expect(await t.directory.current(session, account)).toBe('not-directory');
      expect((await lou.request()).account.role).toBe('auditor');
      expect(t.source.asked).toEqual({ findUser: 0, groups: 0, decoys: 0 });
    },
  );
});
