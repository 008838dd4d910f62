import { addStoredUser } from '../../testing/identity.js';
import { PASSWORD_LINK_FRAGMENT } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DomainError } from '../errors.js';
import { PasswordLinks } from './password-links.js';
import { NoSuchUser, People } from './people.js';
import { type ChangeBy, OwnershipRefused } from './user-ownership.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const HOUR = 3_600_000;
const LINK_MS = 2 * HOUR;
const CLIENT = '198.51.100.7';
const KEY = Buffer.alloc(32, 3);
const PREVIOUS_KEY = Buffer.alloc(32, 4);
const BY_CONSOLE: ChangeBy = { door: 'local', actor: 'console:root' };
const LOGIN_URL = 'https://dea.example.org/login/';

/** Password links over the test's store, on a clock the test moves; hashes are the password marked. */
function linksOf(store: Store, options: { keys?: Buffer[]; hashingFull?: boolean } = {}) {
  const clock = { at: T0 };
  const now = () => clock.at;
  const links = new PasswordLinks({
    store,
    people: new People(store, now, null),
    keys: options.keys ?? [KEY],
    linkMs: LINK_MS,
    loginUrl: LOGIN_URL,
    hashPassword: (password) =>
      options.hashingFull === true ? undefined : Promise.resolve(`hashed:${password}`),
    now,
  });
  return { links, clock };
}

const addUser = (store: Store, username: string, source: UserSource = 'local') =>
  addStoredUser(store, username, T0, source);

/** The token of a link, as the login application reads it from the address. */
const tokenOf = (url: string): string => new URL(url).hash.slice(1 + PASSWORD_LINK_FRAGMENT.length);

const refusalsOf = async (store: Store) =>
  (await store.audit.list({ event: 'user.password_link_refused', limit: 100 })).map((entry) => ({
    reason: entry.details.reason,
    userId: entry.userId ?? null,
  }));

const passwordOf = async (store: Store, id: string) => (await store.users.findById(id))?.passwordHash;

describe.each(STORE_KINDS)('password links on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a link is the login address with its token, valid for the configured time, audited without the token',
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      const ann = await addUser(store, 'ann');
      const { url, expiresAt } = await links.issue(BY_CONSOLE, ann);
      expect(url.startsWith(`${LOGIN_URL}#${PASSWORD_LINK_FRAGMENT}`)).toBe(true);
      expect(expiresAt).toBe(T0 + LINK_MS);
      const entries = await store.audit.list({ userId: ann });
      expect(entries).toMatchObject([
        {
          event: 'user.password_link_issued',
          actor: 'console:root',
          details: { expiresAt: new Date(T0 + LINK_MS).toISOString() },
        },
      ]);
      expect(JSON.stringify(entries)).not.toContain(tokenOf(url));
    },
  );

  storeTest.concurrent(
    "no link for a directory user (their password is the directory's) nor for a user who is not there; nothing written",
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      const dirk = await addUser(store, 'dirk', 'ldap');
      const refused = await links.issue(BY_CONSOLE, dirk).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OwnershipRefused);
      expect((refused as Error).message).toContain("dirk's password is the directory's (DEA_LDAP_URL)");
      await expect(links.issue(BY_CONSOLE, newId(T0))).rejects.toBeInstanceOf(NoSuchUser);
      expect(await store.audit.list({ limit: 10 })).toEqual([]);
    },
  );

  storeTest.concurrent(
    "a SCIM or imported user's password is the administrators' to set: a link is made for them",
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      for (const source of ['scim', 'import'] as const) {
        const id = await addUser(store, `${source}-user`, source);
        await expect(links.issue(BY_CONSOLE, id)).resolves.toMatchObject({ expiresAt: T0 + LINK_MS });
      }
      // The identity provider or the import file may not make one: the door that asks is checked.
      const sam = await addUser(store, 'sam', 'scim');
      await expect(links.issue({ door: 'import', actor: 'import' }, sam)).rejects.toBeInstanceOf(
        OwnershipRefused,
      );
    },
  );

  storeTest.concurrent(
    'a link sets the password once, as the user, ending their sessions; a second use is refused as used',
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      const ann = await addUser(store, 'ann');
      await store.sessions.create({ idHash: 'ann-1', userId: ann, createdAt: T0, lastSeenAt: T0 });
      const token = tokenOf((await links.issue(BY_CONSOLE, ann)).url);
      await links.use(token, 'a new password', CLIENT);
      expect(await passwordOf(store, ann)).toBe('hashed:a new password');
      expect(await store.sessions.listOpenOfUser(ann)).toEqual([]);
      expect(await store.audit.list({ userId: ann, event: 'user.password_set' })).toMatchObject([
        {
          actor: 'user:ann',
          details: { via: 'password-link', clientAddress: CLIENT, sessionsEnded: 1 },
        },
      ]);

      const again = await links.use(token, 'another password', CLIENT).catch((error: unknown) => error);
      expect(again).toBeInstanceOf(DomainError);
      expect(again).toMatchObject({ errorNumber: 3, textKey: 'error.passwordLinkInvalid' });
      expect(await passwordOf(store, ann)).toBe('hashed:a new password');
      expect(await refusalsOf(store)).toEqual([{ reason: 'used', userId: ann }]);
    },
  );

  storeTest.concurrent(
    'a link works until the last millisecond before it expires, and is refused as expired from then on',
    async ({ testStore: { store }, expect }) => {
      const { links, clock } = linksOf(store);
      const ann = await addUser(store, 'ann');
      const bob = await addUser(store, 'bob');
      const annToken = tokenOf((await links.issue(BY_CONSOLE, ann)).url);
      const bobToken = tokenOf((await links.issue(BY_CONSOLE, bob)).url);

      clock.at = T0 + LINK_MS - 1;
      await links.use(annToken, 'just in time', CLIENT);
      expect(await passwordOf(store, ann)).toBe('hashed:just in time');

      clock.at = T0 + LINK_MS;
      await expect(links.use(bobToken, 'just too late', CLIENT)).rejects.toMatchObject({ errorNumber: 3 });
      expect(await passwordOf(store, bob)).toBe('hash-0');
      expect(await refusalsOf(store)).toEqual([{ reason: 'expired', userId: bob }]);
    },
  );

  storeTest.concurrent(
    "a new link replaces the user's unused one: the old token is then unknown, and names no user",
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      const ann = await addUser(store, 'ann');
      const first = tokenOf((await links.issue(BY_CONSOLE, ann)).url);
      const second = tokenOf((await links.issue(BY_CONSOLE, ann)).url);
      await expect(links.use(first, 'from the old link', CLIENT)).rejects.toMatchObject({ errorNumber: 3 });
      expect(await refusalsOf(store)).toEqual([{ reason: 'unknown', userId: null }]);
      await links.use(second, 'from the new link', CLIENT);
      expect(await passwordOf(store, ann)).toBe('hashed:from the new link');
      // Another user's link is theirs alone.
      const bob = await addUser(store, 'bob');
      const bobs = tokenOf((await links.issue(BY_CONSOLE, bob)).url);
      await links.issue(BY_CONSOLE, ann);
      await links.use(bobs, "bob's own password", CLIENT);
      expect(await passwordOf(store, bob)).toBe("hashed:bob's own password");
    },
  );

  storeTest.concurrent(
    'a password the rules refuse, or a hashing queue that is full, keeps the link for another try',
    async ({ testStore: { store }, expect }) => {
      const ann = await addUser(store, 'ann');
      const { links } = linksOf(store);
      const token = tokenOf((await links.issue(BY_CONSOLE, ann)).url);
      // Seven characters: one short of the rule.
      await expect(links.use(token, 'seven c', CLIENT)).rejects.toMatchObject({
        kind: 'invalid',
        params: { detail: 'the password must have 8 to 1024 characters' },
      });
      const busy = linksOf(store, { hashingFull: true }).links;
      await expect(busy.use(token, 'eight ch', CLIENT)).rejects.toMatchObject({
        errorNumber: 140,
        result: { retryAfterSeconds: 1 },
      });
      expect(await passwordOf(store, ann)).toBe('hash-0');
      expect(await refusalsOf(store)).toEqual([]);
      await links.use(token, 'eight ch', CLIENT);
      expect(await passwordOf(store, ann)).toBe('hashed:eight ch');
    },
  );

  storeTest.concurrent(
    'a token never issued is refused as unknown, naming no user, and changes no password',
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      const ann = await addUser(store, 'ann');
      await links.issue(BY_CONSOLE, ann);
      await expect(links.use('made-up-token', 'a new password', CLIENT)).rejects.toMatchObject({
        errorNumber: 3,
      });
      expect(await passwordOf(store, ann)).toBe('hash-0');
      expect(await store.audit.list({ event: 'user.password_link_refused' })).toMatchObject([
        { actor: 'password-link', clientAddress: CLIENT, details: { reason: 'unknown' } },
      ]);
    },
  );

  storeTest.concurrent(
    'a link made under the previous secret still works while the secret is replaced, and not after',
    async ({ testStore: { store }, expect }) => {
      const ann = await addUser(store, 'ann');
      const bob = await addUser(store, 'bob');
      const before = linksOf(store, { keys: [PREVIOUS_KEY] }).links;
      const annToken = tokenOf((await before.issue(BY_CONSOLE, ann)).url);
      const bobToken = tokenOf((await before.issue(BY_CONSOLE, bob)).url);

      await linksOf(store, { keys: [KEY, PREVIOUS_KEY] }).links.use(annToken, 'during the change', CLIENT);
      expect(await passwordOf(store, ann)).toBe('hashed:during the change');
      await expect(linksOf(store).links.use(bobToken, 'after the change', CLIENT)).rejects.toMatchObject({
        errorNumber: 3,
      });
      expect(await passwordOf(store, bob)).toBe('hash-0');
    },
  );

  storeTest.concurrent(
    'of eight uses of one link at once, one sets the password and the others are refused as used',
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      const ann = await addUser(store, 'ann');
      const token = tokenOf((await links.issue(BY_CONSOLE, ann)).url);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) => links.use(token, `new password ${index}`, CLIENT)),
      );
      const accepted = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
      expect(accepted).toHaveLength(1);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ errorNumber: 3 });
      expect(await passwordOf(store, ann)).toBe(`hashed:new password ${accepted[0]}`);
      expect(await store.audit.list({ userId: ann, event: 'user.password_set' })).toHaveLength(1);
      expect((await refusalsOf(store)).map((refusal) => refusal.reason)).toEqual(Array(7).fill('used'));
    },
  );

  storeTest.concurrent(
    "a link whose user was removed meanwhile sets nobody's password",
    async ({ testStore: { store }, expect }) => {
      const { links } = linksOf(store);
      const ann = await addUser(store, 'ann');
      const token = tokenOf((await links.issue(BY_CONSOLE, ann)).url);
      await new People(store, () => T0, null).remove(BY_CONSOLE, ann);
      await expect(links.use(token, 'a new password', CLIENT)).rejects.toMatchObject({ errorNumber: 3 });
      expect(await store.audit.list({ event: 'user.password_set' })).toEqual([]);
    },
  );
});
