import { usernameOrThrow } from '@dea/contract';
import { inject, describe, expect, vi } from 'vitest';
import { HashQueue } from '../crypto/hash-queue.js';
import { LdapDirectory } from './ldap-directory.js';
import { runScheduledSync } from './scheduled-sync.js';
import { appTest } from '../testing/fixtures.js';
import { createLdapTree, DIRECTORY_PEOPLE } from '../testing/ldap-tree.js';
import { STORE_KINDS } from '../testing/stores.js';
import { tcpFront } from '../testing/tcp-fronts.js';
import type { TestApp } from '../testing/test-app.js';

// Vitest reads a fixture's dependencies from its first parameter's destructuring: none here.
// oxlint-disable-next-line no-empty-pattern
const directoryTest = appTest.extend('tree', async ({}, { onCleanup }) => {
  const tree = await createLdapTree(inject('ldap'));
  onCleanup(() => tree.dispose());
  return tree;
});

describe.each(STORE_KINDS)('users from the directory on %s', (kind) => {
  directoryTest.override('storeKind', kind);

  const signIn = (t: TestApp, username: string, password: string) =>
    t.app.inject({
      method: 'POST',
      url: '/login/api/session',
      payload: { username, password },
      remoteAddress: '198.51.100.7',
    });

  directoryTest(
    'signs in with the directory password and brings the user, channels and groups in',
    async ({ startApp, tree }) => {
      const t = await startApp(tree.settings);
      expect((await signIn(t, 'alice', 'wrong')).json()).toMatchObject({ error: 3 });
      expect(await t.services.store.users.findByUsername(usernameOrThrow('alice'))).toBeUndefined();
      expect((await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({ error: 0 });
      const alice = await t.services.store.users.findByUsername(usernameOrThrow('alice'));
      expect(alice).toMatchObject({ source: 'ldap', fullName: 'Alice Archer', disabled: false });
      expect(alice?.passwordHash).toBe('!');
      const channels = await t.services.store.channels.listOfUser(alice?.id ?? '');
      expect(Object.fromEntries(channels.map((channel) => [channel.key, channel.address]))).toEqual({
        email: 'alice@dea.test',
        mobile: '+491705550101',
        telephone: '+49305550101',
      });
      expect((await t.services.store.groups.listOfUser(alice?.id ?? '')).map((group) => group.name)).toEqual([
        'VPN',
      ]);
      const audit = await t.services.store.audit.list({ limit: 100 });
      expect(audit.some((entry) => entry.event === 'user.created' && entry.actor === 'directory')).toBe(true);
      expect(JSON.stringify(audit)).not.toContain(DIRECTORY_PEOPLE.alice.password);
    },
  );

  directoryTest(
    'refuses a user disabled in Active Directory, and keeps local users signing in locally',
    async ({ startApp, tree }) => {
      const t = await startApp({
        ...tree.settings,
        DEA_LDAP_ACTIVE_DIRECTORY: 'true',
        DEA_LDAP_USER_FILTER: '(objectClass=user)',
      });
      expect((await signIn(t, 'dave.ad', DIRECTORY_PEOPLE.dave.password)).json()).toMatchObject({ error: 3 });
      expect(await t.services.store.users.findByUsername(usernameOrThrow('dave.ad'))).toMatchObject({
        disabled: true,
      });
      expect((await signIn(t, 'carol.ad', DIRECTORY_PEOPLE.carol.password)).json()).toMatchObject({
        error: 0,
      });
      const local = await t.createUser();
      expect((await signIn(t, local.username, local.password)).json()).toMatchObject({ error: 0 });
      // A directory password never opens a local account of the same name, nor the reverse.
      expect((await signIn(t, local.username, DIRECTORY_PEOPLE.carol.password)).json()).toMatchObject({
        error: 3,
      });
    },
  );

  directoryTest(
    'answers "temporarily unavailable" when the directory is down, with no local fallback and no count',
    async ({ startApp, tree }) => {
      const t = await startApp({
        ...tree.settings,
        DEA_LDAP_URL: 'ldap://127.0.0.1:1',
        DEA_SIGNIN_MAX_FAILURES: '2',
      });
      for (let attempt = 0; attempt < 4; attempt += 1) {
        const answer = await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password);
        expect(answer.statusCode).toBe(503);
        expect(answer.headers['retry-after']).toBe('5');
        expect(answer.json()).toMatchObject({
          error: 1,
          message: expect.stringMatching(/temporarily unavailable/),
        });
      }
      const events = (await t.services.store.audit.list({ limit: 100 })).map((entry) => entry.event);
      expect(events.filter((event) => event === 'signin.directory_unavailable')).toHaveLength(4);
    },
  );

  directoryTest(
    'a first URL that takes connections and never answers: four sign-ins in a row succeed, only the first meets it',
    async ({ startApp, tree }) => {
      const hung = await tcpFront(tree.settings.DEA_LDAP_URL ?? '', 'silent');
      try {
        // Anonymous and without StartTLS nothing is sent before the search: it must be answered too.
        const t = await startApp({
          ...tree.settings,
          DEA_LDAP_URL: `${hung.url},${tree.settings.DEA_LDAP_URL}`,
          DEA_LDAP_TIMEOUT_SECONDS: '1',
          DEA_LDAP_STARTTLS: 'false',
          DEA_LDAP_BIND_DN: '',
          DEA_LDAP_BIND_PASSWORD_FILE: '',
        });
        for (let attempt = 0; attempt < 4; attempt += 1)
          expect((await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({
            error: 0,
          });
        expect(hung.connections()).toBe(1);
        const events = (await t.services.store.audit.list({ limit: 100 })).map((entry) => entry.event);
        expect(events).not.toContain('signin.directory_unavailable');
      } finally {
        await hung.close();
      }
    },
  );

  directoryTest(
    'an entry deleted and made again under the same name is a new person: refused with a reason until the old user is removed',
    async ({ startApp, tree }) => {
      const t = await startApp(tree.settings);
      expect((await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({ error: 0 });
      const old = await t.services.store.users.findByUsername(usernameOrThrow('alice'));
      // Deleted and made again (a re-hire, an account made anew): a new entryUUID.
      const admin = await tree.admin();
      try {
        await admin.del(tree.dnOf('alice'));
        await admin.add(tree.dnOf('alice'), {
          objectClass: ['inetOrgPerson'],
          uid: 'alice',
          cn: 'Alice Archer',
          sn: 'Archer',
          userPassword: 'alice-new-directory-pw',
          mail: 'alice.new@dea.test',
        });
      } finally {
        await admin.unbind();
      }
      const refused = await signIn(t, 'alice', 'alice-new-directory-pw');
      expect(refused.statusCode).toBe(200);
      expect(refused.json()).toMatchObject({ error: 3, message: expect.stringMatching(/needs attention/) });
      const failed = (await t.services.store.audit.list({ limit: 100 })).find(
        (entry) => entry.event === 'signin.failed',
      );
      expect(failed).toMatchObject({
        userId: old?.id,
        details: { reason: 'directory-entry-replaced', previousExternalId: old?.externalId },
      });
      // oxlint-disable-next-line no-unsafe-optional-chaining -- a missing entry fails the test
      expect((failed?.details as { externalId?: string }).externalId).not.toBe(old?.externalId);
      // The old user keeps what was theirs: no channel of the new entry came to them.
      const channels = await t.services.store.channels.listOfUser(old?.id ?? '');
      expect(channels.map((channel) => channel.address)).toContain('alice@dea.test');

      // The sync says the same, naming what to do; the operator removes the old user.
      const sync = await t.dea(['directory', 'sync'], tree.settings);
      expect(sync.out).toMatch(/alice.*entry was replaced.*dea user remove alice/);
      expect((await t.dea(['user', 'remove', 'alice'], tree.settings)).code).toBe(0);
      expect((await signIn(t, 'alice', 'alice-new-directory-pw')).json()).toMatchObject({ error: 0 });
      const replaced = await t.services.store.users.findByUsername(usernameOrThrow('alice'));
      expect(replaced?.id).not.toBe(old?.id);
      // oxlint-disable-next-line no-unsafe-optional-chaining -- a missing entry fails the test
      expect(replaced?.externalId).toBe((failed?.details as { externalId?: string }).externalId);
    },
  );

  directoryTest(
    'checks at most DEA_SIGNIN_MAX_FAILURES directory passwords of a burst of 60 parallel guesses',
    async ({ startApp, tree }) => {
      const t = await startApp({ ...tree.settings, DEA_SIGNIN_MAX_FAILURES: '3' });
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, index) => signIn(t, 'bob', `guess-${index}`)),
      );
      expect(answers.every((answer) => answer.json<{ error: number }>().error !== 0)).toBe(true);
      const failed = (await t.services.store.audit.list({ limit: 1000 })).filter(
        (entry) => entry.event === 'signin.failed',
      );
      expect(failed).toHaveLength(3);
      expect((await signIn(t, 'bob', DIRECTORY_PEOPLE.bob.password)).json()).toMatchObject({ error: 140 });
    },
  );

  directoryTest(
    'dea directory sync creates, updates and disables, and ends the sessions of a removed user',
    async ({ startApp, tree }) => {
      const t = await startApp(tree.settings);
      expect((await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({ error: 0 });
      const session = await t.signIn({
        username: 'alice',
        password: DIRECTORY_PEOPLE.alice.password,
        id: '',
      });
      const first = await t.dea(['directory', 'sync'], tree.settings);
      expect(first.out).toMatch(/3 created, 1 updated|3 created, 0 updated/);
      expect(first.out).toMatch(/0 disabled.*0 failed/);
      expect(first.code).toBe(0);
      expect(await t.services.store.users.findByUsername(usernameOrThrow('bob'))).toMatchObject({
        source: 'ldap',
      });

      const admin = await tree.admin();
      await admin.del(tree.dnOf('alice'));
      await admin.modify(tree.dnOf('bob'), [
        new (await import('ldapts')).Change({
          operation: 'replace',
          modification: new (await import('ldapts')).Attribute({ type: 'cn', values: ['Robert Baker'] }),
        }),
      ]);
      await admin.unbind();
      // A removed entry is seen by a full pass only (a sync by change reads what changed).
      const second = await t.dea(['directory', 'sync', '--full'], tree.settings);
      expect(second.out).toMatch(
        /full pass \(asked for\): 0 created, 1 updated, 1 disabled, 2 unchanged, 0 skipped, 0 failed/,
      );
      expect(await t.services.store.users.findByUsername(usernameOrThrow('bob'))).toMatchObject({
        fullName: 'Robert Baker',
      });
      expect(await t.services.store.users.findByUsername(usernameOrThrow('alice'))).toMatchObject({
        disabled: true,
      });
      expect((await t.call('/dea/api/userinfo', {}, session)).statusCode).toBe(401);
      expect((await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({ error: 3 });
    },
  );

  directoryTest(
    'dea directory sync names an entry without a user name and why, and leaves it out without failing',
    async ({ startApp, tree }) => {
      const t = await startApp(tree.settings);
      const admin = await tree.admin();
      const nameless = `cn=Nameless Person,ou=people,${tree.baseDn}`;
      try {
        await admin.add(nameless, { objectClass: ['inetOrgPerson'], cn: 'Nameless Person', sn: 'Person' });
      } finally {
        await admin.unbind();
      }
      const synced = await t.dea(['directory', 'sync'], tree.settings);
      expect(synced.out).toContain(
        `skipped ${nameless}: no value for the user-name attribute uid (DEA_LDAP_ATTRIBUTES): left as it was, not disabled`,
      );
      expect(synced.out).toMatch(/4 created, .* 1 skipped, 0 failed/);
      expect(synced.code).toBe(0);
    },
  );

  directoryTest(
    'dea directory sync names the setting when no directory is set or it cannot be reached',
    async ({ startApp, tree }) => {
      const t = await startApp();
      const unset = await t.dea(['directory', 'sync'], {});
      expect(unset.code).toBe(1);
      expect(unset.err).toMatch(/DEA_LDAP_URL/);
      const down = await t.dea(['directory', 'sync'], {
        ...tree.settings,
        DEA_LDAP_URL: 'ldap://127.0.0.1:1',
      });
      expect(down.code).toBe(1);
      expect(down.err).toMatch(/no directory answered.*DEA_LDAP_URL/);
      expect(inject('ldap').url).toMatch(/^ldap:/);
    },
  );

  directoryTest(
    'the background sync runs once per interval however many ask at once: the turn is an atomic counter in the shared store',
    async ({ startApp, tree }) => {
      const t = await startApp({ ...tree.settings, DEA_LDAP_SYNC_MINUTES: '60' });
      const runs = await Promise.all(Array.from({ length: 8 }, () => runScheduledSync(t.services)));
      expect(runs.filter((run) => run !== undefined)).toHaveLength(1);
      expect(runs.find((run) => run !== undefined)).toMatchObject({ created: 4, failed: [] });
      t.clock.advance(60 * 60_000);
      // The next interval's sync reads only what changed: nothing was written.
      expect(await runScheduledSync(t.services)).toMatchObject({
        full: false,
        created: 0,
        updated: 0,
        disabled: 0,
      });
      const synced = (await t.services.store.audit.list({ limit: 100 })).filter(
        (entry) => entry.event === 'directory.synced',
      );
      expect(synced).toHaveLength(2);
    },
  );

  directoryTest(
    'costs one bind per attempt, known name or not, and searches groups only once the password is right',
    async ({ startApp, tree }) => {
      const t = await startApp(tree.settings);
      const binds = vi.spyOn(LdapDirectory.prototype, 'passwordCheck');
      const groupSearches = vi.spyOn(LdapDirectory.prototype, 'groupsOf');
      const hashes = vi.spyOn(HashQueue.prototype, 'tryRun');
      try {
        expect((await signIn(t, 'nobody', 'whatever')).json()).toMatchObject({ error: 3 });
        expect((await signIn(t, 'alice', 'wrong')).json()).toMatchObject({ error: 3 });
        expect(binds).toHaveBeenCalledTimes(2);
        expect(groupSearches).not.toHaveBeenCalled();
        expect(hashes).not.toHaveBeenCalled();
        expect((await signIn(t, 'alice', DIRECTORY_PEOPLE.alice.password)).json()).toMatchObject({
          error: 0,
        });
        expect(binds).toHaveBeenCalledTimes(3);
        expect(groupSearches).toHaveBeenCalledTimes(1);
        const events = (await t.services.store.audit.list({ limit: 100 })).map((entry) => entry.event);
        expect(events.filter((event) => event === 'signin.failed')).toHaveLength(2);
      } finally {
        vi.restoreAllMocks();
      }
    },
  );
});
