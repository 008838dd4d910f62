import { RequestTurns } from '../domain/bulkheads.js';
import { identityOf } from '../testing/identity.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usernameOrThrow } from '@dea/contract';
import { Client, InvalidCredentialsError } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { DirectoryConfig } from './directory-settings.js';
import { DirectoryUsers } from './directory-users.js';
import { LdapDirectory } from './ldap-directory.js';
import { protectedAdminsWarning } from './protected-admins.js';
import { appTest } from '../testing/fixtures.js';
import { sharedSambaDc, type SambaDc } from '../testing/samba-dc.js';
import { signInAttempt } from '../testing/sign-in-attempts.js';
import { openTestStore, STORE_KINDS } from '../testing/stores.js';
import { testConfig } from '../testing/test-app.js';

// The run's domain controller (testing/samba-dc.ts), shared with active-directory.process.test.ts:
// this file's accounts have names of their own (a random tag), the sync's people an OU of its own.
let dc: SambaDc;
let settings: Record<string, string>;
let secretDir: string;
const FILE_TAG = randomBytes(3).toString('hex');
const READER = `dea-reader-${FILE_TAG}`;
/** An account like the one Samba makes for BIND's DNS (dns-<dc>): a user with a service principal name. */
const DNS_ACCOUNT = `dns-${FILE_TAG}`;
const READER_PASSWORD = `Rdr-${randomBytes(6).toString('hex')}!`;
/** Active Directory's lockout after this many bad passwords (the domain's lockoutThreshold). */
const AD_LOCKOUT_THRESHOLD = 4;

const passwordOf = (name: string) => `Pw-${name}-7x!`;
const dnOf = (name: string) => `CN=${name},CN=Users,${dc.baseDn}`;

/** A person of the domain, with a name of their own for this test (and an explicit principal name). */
async function addPerson(prefix: string): Promise<string> {
  const name = `${prefix}${randomBytes(3).toString('hex')}`;
  await dc.admin.addUser(name, passwordOf(name), {
    mail: `${name}@dea.test`,
    principalName: `${name}.p@corp.example`,
  });
  return name;
}

/** The bad passwords the domain controller has counted for a person (badPwdCount). */
async function badPasswordCount(name: string): Promise<number> {
  const client = new Client({ url: dc.ldapsUrl, tlsOptions: { ca: readFileSync(dc.caFile) } });
  try {
    await client.bind(dc.adminDn, dc.adminPassword);
    const { searchEntries } = await client.search(dnOf(name), { scope: 'base', attributes: ['badPwdCount'] });
    return Number(searchEntries[0]?.badPwdCount ?? 0);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

function directoryOf(
  extra: Record<string, string> = {},
  log?: ConstructorParameters<typeof LdapDirectory>[2],
) {
  return new LdapDirectory(testConfig({ ...settings, ...extra }).directory as DirectoryConfig, Date.now, log);
}

beforeAll(async () => {
  dc = await sharedSambaDc();
  await dc.admin.addUser(READER, READER_PASSWORD);
  await dc.admin.addUser(DNS_ACCOUNT, `Dns-${randomBytes(6).toString('hex')}!`);
  await dc.admin.addServicePrincipalName(DNS_ACCOUNT, `DNS/${DNS_ACCOUNT}.dea.test`);
  // The domain's own setting, which no other file of the run depends on.
  await dc.admin.setLockoutThreshold(AD_LOCKOUT_THRESHOLD);
  secretDir = mkdtempSync(join(tmpdir(), 'dea-ad-bind-'));
  writeFileSync(join(secretDir, 'bind-password'), READER_PASSWORD, { mode: 0o600 });
  settings = {
    DEA_LDAP_URL: dc.ldapsUrl,
    DEA_LDAP_CA_FILE: dc.caFile,
    DEA_LDAP_BASE_DN: dc.baseDn,
    DEA_LDAP_BIND_DN: dnOf(READER),
    DEA_LDAP_BIND_PASSWORD_FILE: join(secretDir, 'bind-password'),
    DEA_LDAP_ACTIVE_DIRECTORY: 'true',
    DEA_LDAP_SYNC_MINUTES: '0',
    // A safety net only: the controller is the run's, and the machine may be loaded.
    DEA_LDAP_TIMEOUT_SECONDS: '60',
  };
}, 180_000);

afterAll(() => {
  if (secretDir !== undefined) rmSync(secretDir, { recursive: true, force: true });
});

// A domain controller shared by the run's files, on a machine that may be loaded: generous deadlines.
describe('Active Directory (Samba 4 as a domain controller)', { timeout: 180_000 }, () => {
  appTest(
    'the default filter takes people only: no system accounts, computers or the service account',
    async () => {
      const alice = await addPerson('alice');
      const directory = directoryOf();
      const names: string[] = [];
      for await (const page of directory.allUsers()) names.push(...page.map((user) => user.username));
      await directory.close();
      expect(names).toContain(alice);
      for (const system of ['Administrator', 'krbtgt', 'Guest', DNS_ACCOUNT, 'DC1$', READER])
        expect(names).not.toContain(system);
    },
  );

  appTest('the start warns of the protected administrators the filter would take, naming them', async () => {
    const admin = await addPerson('opadmin');
    await dc.admin.addMembers('Domain Admins', [admin]);
    // What AD's SDProp sets on members of protected groups.
    await dc.modify(`dn: ${dnOf(admin)}\nchangetype: modify\nreplace: adminCount\nadminCount: 1\n`);
    const allowed = directoryOf({ DEA_LDAP_AD_PROTECTED_ADMINS: 'true' });
    const warning = await protectedAdminsWarning(allowed);
    await allowed.close();
    expect(warning).toContain(admin);
    expect(warning).toContain('DEA_LDAP_AD_PROTECTED_ADMINS');
    const left = directoryOf();
    expect(await protectedAdminsWarning(left)).toBeUndefined();
    await left.close();
  });

  describe.each(STORE_KINDS)('sign-in on %s', (kind) => {
    appTest.override('storeKind', kind);

    appTest("refuses Administrator, with the domain administrator's password", async ({ startApp }) => {
      const t = await startApp(settings);
      expect((await signInAttempt(t, 'Administrator', dc.adminPassword)).json()).toMatchObject({ error: 3 });
      expect(await t.services.store.users.findByUsername(usernameOrThrow('administrator'))).toBeUndefined();
    });

    appTest(
      'an account AD protects as an administrator signs in only when the setting allows it',
      async ({ startApp }) => {
        const admin = await addPerson('prot');
        await dc.modify(`dn: ${dnOf(admin)}\nchangetype: modify\nreplace: adminCount\nadminCount: 1\n`);
        const refused = await startApp(settings);
        expect((await signInAttempt(refused, admin, passwordOf(admin))).json()).toMatchObject({ error: 3 });
        const allowed = await startApp({ ...settings, DEA_LDAP_AD_PROTECTED_ADMINS: 'true' });
        expect((await signInAttempt(allowed, admin, passwordOf(admin))).json()).toMatchObject({ error: 0 });
      },
    );

    appTest(
      'signs in by sAMAccountName, userPrincipalName and DOMAIN\\name as one person',
      async ({ startApp }) => {
        const t = await startApp(settings);
        const name = await addPerson('ann');
        const ids = new Set<string>();
        for (const typed of [
          name,
          `${name}.p@corp.example`,
          `DEA\\${name}`,
          `dea\\${name.toUpperCase()}`,
          `${name}@dea.test`,
        ]) {
          const answer = await signInAttempt(t, typed, passwordOf(name));
          expect(answer.json(), typed).toMatchObject({ error: 0 });
          ids.add((await t.services.store.users.findByUsername(usernameOrThrow(name)))?.id ?? 'none');
        }
        expect([...ids]).toHaveLength(1);
        expect(ids.has('none')).toBe(false);
        // Another domain before the backslash is nobody.
        expect((await signInAttempt(t, `OTHER\\${name}`, passwordOf(name))).json()).toMatchObject({
          error: 3,
        });
      },
    );

    appTest(
      'three failed sign-ins in three forms count three times against the one person',
      async ({ startApp }) => {
        const t = await startApp({ ...settings, DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_SLOWDOWN_MS: '0' });
        const name = await addPerson('bea');
        for (const typed of [name, `${name}.p@corp.example`, `DEA\\${name}`])
          expect((await signInAttempt(t, typed, 'Wrong-password-1')).json(), typed).toMatchObject({
            error: 3,
          });
        // Each form was typed once; the entry they all found has three failures: locked.
        const answer = (await signInAttempt(t, name, passwordOf(name))).json();
        expect(answer).toMatchObject({ error: 140 });
        const locked = (await t.services.store.audit.list({ limit: 100 })).filter(
          (entry) => entry.event === 'signin.locked',
        );
        expect(locked.map((entry) => entry.details.limit)).toEqual(['entry-address']);
      },
    );

    appTest(
      '30 parallel wrong passwords in three forms reach the domain controller DEA_SIGNIN_MAX_FAILURES times, as its badPwdCount shows',
      async ({ startApp }) => {
        const t = await startApp({ ...settings, DEA_SIGNIN_MAX_FAILURES: '3' });
        const name = await addPerson('par');
        const forms = [name, `${name}.p@corp.example`, `DEA\\${name}`];
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, index) =>
            signInAttempt(t, forms[index % 3] ?? name, 'Wrong-password-1'),
          ),
        );
        expect(answers.every((answer) => answer.json<{ error: number }>().error !== 0)).toBe(true);
        // What Active Directory itself counted: the bad passwords it was sent for this person.
        expect(await badPasswordCount(name)).toBe(3);
        expect((await signInAttempt(t, `DEA\\${name}`, passwordOf(name))).json()).toMatchObject({
          error: 140,
        });
      },
    );

    appTest(
      "tells the person their directory account needs attention and audits AD's reason, never wrong password",
      async ({ startApp }) => {
        const t = await startApp(settings);
        const mustChange = await addPerson('chg');
        await dc.modify(`dn: ${dnOf(mustChange)}\nchangetype: modify\nreplace: pwdLastSet\npwdLastSet: 0\n`);
        const disabled = await addPerson('dis');
        await dc.admin.disableUser(disabled);
        const expired = await addPerson('exp');
        await dc.admin.expireUser(expired);
        const passwordExpired = await addPerson('old');
        // A password set in 1970, past the domain's maximum password age (42 days).
        await dc.modify(
          `dn: ${dnOf(passwordExpired)}\nchangetype: modify\nreplace: pwdLastSet\npwdLastSet: 116444736000000000\n`,
          { raw: true },
        );
        const night = await addPerson('hrs');
        // No hour of the week at which this account may sign in.
        await dc.modify(
          `dn: ${dnOf(night)}\nchangetype: modify\nreplace: logonHours\nlogonHours:: ${Buffer.alloc(21).toString('base64')}\n`,
        );
        const locked = await addPerson('lck');
        for (let attempt = 0; attempt < AD_LOCKOUT_THRESHOLD; attempt += 1) {
          const client = new Client({ url: dc.ldapsUrl, tlsOptions: { ca: readFileSync(dc.caFile) } });
          await expect(client.bind(dnOf(locked), 'Wrong-password-1')).rejects.toThrow(
            InvalidCredentialsError,
          );
          await client.unbind().catch(() => undefined);
        }

        const cases = [
          [mustChange, 'must-change-password'],
          [disabled, 'disabled'],
          [expired, 'account-expired'],
          [passwordExpired, 'password-expired'],
          [locked, 'locked'],
          [night, 'not-allowed-now'],
        ] as const;
        for (const [name, problem] of cases) {
          for (const language of ['en', 'ar']) {
            const answer = await t.app.inject({
              method: 'POST',
              url: '/login/api/session',
              payload: { username: `DEA\\${name}`, password: passwordOf(name) },
              headers: { 'accept-language': language },
              remoteAddress: '198.51.100.9',
            });
            const body = answer.json<{ error: number; message: string }>();
            expect(body.error, `${name} ${language}`).toBe(3);
            expect(body.message).toBe(await t.services.catalogs.text(language, 'login.directoryAccount'));
            expect(body.message).not.toBe(await t.services.catalogs.text(language, 'login.failed'));
          }
          const user = await t.services.store.users.findByUsername(usernameOrThrow(name));
          expect(user, name).toBeDefined();
          const failures = (await t.services.store.audit.list({ userId: user?.id ?? '', limit: 10 })).filter(
            (entry) => entry.event === 'signin.failed',
          );
          expect(failures.map((entry) => entry.details)).toEqual([
            { reason: 'directory-account', directoryProblem: problem },
            { reason: 'directory-account', directoryProblem: problem },
          ]);
        }
        // A wrong password of a healthy account is still just that.
        const healthy = await addPerson('ok');
        const wrong = (await signInAttempt(t, healthy, 'Wrong-password-1')).json<{ message: string }>();
        expect(wrong.message).toBe(await t.services.catalogs.text('en', 'login.failed'));
      },
    );
  });

  // One directory for every store of the run (STORE_KINDS), each store synced by a sync of its own
  // at every step: the 1,600 people of the large group and the controller's changes are made once.
  it(`the sync by change on ${STORE_KINDS.join(' and ')}: reads only what changed since the controller's highestCommittedUSN, nests groups in memory, reads a large group's members by range, and disables a deleted user at the full pass`, {
    timeout: 600_000,
  }, async () => {
    // An OU of this test's own, the base DN of its sync: other tests' people are not in it.
    const tag = randomBytes(3).toString('hex');
    const ou = `OU=sync${tag}`;
    const base = `${ou},${dc.baseDn}`;
    await dc.admin.addOu(ou);
    const personDn = (name: string) => `CN=${name},${base}`;
    const groupDn = (name: string) => `CN=${name},${base}`;
    const addUser = (name: string) => dc.admin.addUser(name, passwordOf(name), { ou });
    const addGroup = (name: string) => dc.admin.addGroup(name, { ou });
    const [one, two, three] = [`one${tag}`, `two${tag}`, `three${tag}`];
    for (const name of [one, two, three]) await addUser(name);
    // top > middle > leafA; leafB on its own. top and leafB are mapped.
    const [top, middle, leafA, leafB, big] = ['top', 'mid', 'leafa', 'leafb', 'big'].map(
      (name) => `${name}${tag}`,
    ) as [string, string, string, string, string];
    for (const group of [top, middle, leafA, leafB]) await addGroup(group);
    await dc.admin.addMembers(top, [middle]);
    await dc.admin.addMembers(middle, [leafA]);
    await dc.admin.addMembers(leafA, [one, two]);
    await dc.admin.addMembers(leafB, [three]);
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
      await dc.modify(`${records.slice(start, start + 200).join('\n\n')}\n`);
    await dc.modify(
      `${[
        `dn: ${groupDn(big)}`,
        'changetype: add',
        'objectClass: group',
        `sAMAccountName: ${big}`,
        ...Array.from({ length: BIG }, (_, index) => `member: ${personDn(bigName(index))}`),
      ].join('\n')}\n`,
    );

    const config = testConfig({
      ...settings,
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
      STORE_KINDS.map(async (kind) => {
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
    await dc.modify(
      `dn: ${personDn(one)}\nchangetype: modify\nreplace: displayName\ndisplayName: Renamed One\n`,
    );
    await dc.admin.removeMembers(leafA, [two]);
    await dc.admin.addMembers(leafB, [two]);
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
    await dc.admin.deleteEntry(three);
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
