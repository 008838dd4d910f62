import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Attribute, Change } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { inject } from 'vitest';
import { testConfig } from '../testing/test-app.js';
import { createLdapTree, DIRECTORY_PEOPLE, type LdapTree } from '../testing/ldap-tree.js';
import type { DirectoryConfig } from './directory-settings.js';
import { DirectoryUnavailableError } from '../domain/identity/user-directory.js';
import { LdapDirectory } from './ldap-directory.js';
import { testFolder } from '../testing/test-folder.js';

function directoryOf(settings: Record<string, string>): LdapDirectory {
  const config = testConfig(settings).directory as DirectoryConfig;
  return new LdapDirectory(config);
}

describe('the directory on OpenLDAP (slapd)', () => {
  let tree: LdapTree;
  beforeAll(async () => {
    tree = await createLdapTree(inject('ldap'));
  });
  afterAll(() => tree.dispose());

  it('finds an inetOrgPerson user with channels and nested groups, over StartTLS with the private CA', async () => {
    const alice = await directoryOf(tree.settings).findUser('alice');
    expect(alice).toMatchObject({
      ref: tree.dnOf('alice'),
      username: 'alice',
      fullName: 'Alice Archer',
      disabled: false,
      channels: { email: 'alice@dea.test', mobile: '+49 170 5550101', telephone: '+49 30 5550101' },
      groups: ['VPN'],
    });
    expect(alice?.externalId).toMatch(/^[0-9a-f-]{36}$/);
    const bob = await directoryOf(tree.settings).findUser('bob');
    expect(bob).toMatchObject({ channels: { mobile: null, telephone: null }, groups: ['Contractors'] });
  });

  it('reads Active Directory users by sAMAccountName or userPrincipalName, objectGUID and the disabled bit', async () => {
    const ad = {
      ...tree.settings,
      DEA_LDAP_ACTIVE_DIRECTORY: 'true',
      DEA_LDAP_USER_FILTER: '(objectClass=user)',
    };
    const carol = await directoryOf(ad).findUser('carol.ad');
    expect(carol).toMatchObject({
      username: 'carol.ad',
      fullName: 'Carol Cruz',
      disabled: false,
      groups: ['VPN'],
    });
    expect(carol?.externalId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await directoryOf(ad).findUser('dave.ad')).toMatchObject({ disabled: true });
    expect(await directoryOf(ad).findUser('alice')).toBeUndefined();
    const byPrincipal = { ...ad, DEA_LDAP_ATTRIBUTES: '{"username":"userPrincipalName"}' };
    expect(await directoryOf(byPrincipal).findUser('carol@dea.test')).toMatchObject({
      ref: tree.dnOf('carol'),
    });
  });

  it('leaves system objects, computers, service accounts, the service account and protected administrators out of Active Directory by default', async () => {
    // A tree of its own: the other tests list the people of theirs.
    const own = await createLdapTree(inject('ldap'));
    onTestFinished(() => own.dispose());
    const admin = await own.admin();
    const people = `ou=ad-objects,${own.baseDn}`;
    const adUser = (name: string, extra: Record<string, string>, classes: string[] = []) =>
      admin.add(`uid=${name},${people}`, [
        new Attribute({ type: 'objectClass', values: ['inetOrgPerson', 'user', ...classes] }),
        ...Object.entries({
          uid: name,
          cn: name,
          sn: name,
          sAMAccountName: name,
          userAccountControl: '512',
          userPassword: `${name}-password`,
          ...extra,
        }).map(([type, value]) => new Attribute({ type, values: [value] })),
        new Attribute({ type: 'objectGUID', values: [randomBytes(16)] }),
      ]);
    try {
      await admin.add(people, { objectClass: ['organizationalUnit'], ou: 'ad-objects' });
      await adUser('administrator', { isCriticalSystemObject: 'TRUE', adminCount: '1' });
      await adUser('krbtgt', { isCriticalSystemObject: 'TRUE', servicePrincipalName: 'kadmin/changepw' });
      await adUser('guest', { isCriticalSystemObject: 'TRUE' });
      await adUser('dns-dc1', { servicePrincipalName: 'DNS/dc1.dea.test' });
      await adUser('ws01$', {}, ['computer']);
      await adUser('erin.admin', { adminCount: '1' });
      await adUser('svc-dea', {});
    } finally {
      await admin.unbind();
    }
    const passwordFile = join(testFolder('ad-bind'), 'password');
    writeFileSync(passwordFile, 'svc-dea-password', { mode: 0o600 });
    const ad = {
      ...own.settings,
      DEA_LDAP_ACTIVE_DIRECTORY: 'true',
      DEA_LDAP_BIND_DN: `uid=svc-dea,${people}`,
      DEA_LDAP_BIND_PASSWORD_FILE: passwordFile,
    };
    const found = async (settings: Record<string, string>) => {
      const names: string[] = [];
      for (const name of [
        'administrator',
        'krbtgt',
        'guest',
        'dns-dc1',
        'ws01$',
        'erin.admin',
        'svc-dea',
        'carol.ad',
      ])
        if ((await directoryOf(settings).findUser(name, { groups: false })) !== undefined) names.push(name);
      return names;
    };
    expect(await found(ad)).toEqual(['carol.ad']);
    // Protected administrators only when asked for; the rest never by default.
    expect(await found({ ...ad, DEA_LDAP_AD_PROTECTED_ADMINS: 'true' })).toEqual(['erin.admin', 'carol.ad']);
    // A filter of one's own still never takes the service account, nor protected administrators.
    expect(await found({ ...ad, DEA_LDAP_USER_FILTER: '(objectClass=user)' })).toEqual([
      'krbtgt',
      'guest',
      'dns-dc1',
      'ws01$',
      'carol.ad',
    ]);
  });

  it('checks a password by binding as the user, and never binds with an empty one', async () => {
    const directory = directoryOf(tree.settings);
    expect(await directory.checkPassword(tree.dnOf('alice'), DIRECTORY_PEOPLE.alice.password)).toBe(true);
    expect(await directory.checkPassword(tree.dnOf('alice'), 'wrong')).toBe(false);
    expect(await directory.checkPassword(tree.dnOf('alice'), '')).toBe(false);
  });

  it('keeps filter characters of a user name as text', async () => {
    expect(await directoryOf(tree.settings).findUser('a*)(uid=*')).toBeUndefined();
    expect(await directoryOf(tree.settings).findUser('*')).toBeUndefined();
    expect(await directoryOf(tree.settings).findUser('al*')).toBeUndefined();
  });

  it('lists every user page by page', async () => {
    const pages: string[][] = [];
    for await (const page of directoryOf({ ...tree.settings, DEA_LDAP_PAGE_SIZE: '10' }).allUsers()) {
      pages.push(page.map((user) => user.username));
    }
    expect(pages.flat().sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  it('lists only the users changed since a point (modifyTimestamp)', async () => {
    const names = async (since: Date) => {
      const seen: string[] = [];
      for await (const page of directoryOf(tree.settings).allUsers(since))
        seen.push(...page.map((u) => u.username));
      return seen.sort();
    };
    expect(await names(new Date(0))).toEqual(['alice', 'bob', 'carol', 'dave']);
    const admin = await tree.admin();
    try {
      await admin.modify(
        tree.dnOf('bob'),
        new Change({
          operation: 'replace',
          modification: new Attribute({ type: 'cn', values: ['Bob Baker'] }),
        }),
      );
      const { searchEntries } = await admin.search(tree.dnOf('bob'), {
        scope: 'base',
        attributes: ['modifyTimestamp'],
      });
      const stamp = String(searchEntries[0]?.modifyTimestamp);
      const changed = new Date(
        stamp.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'),
      );
      expect(await names(changed)).toContain('bob');
      expect(await names(new Date(changed.getTime() + 1000))).toEqual([]);
    } finally {
      await admin.unbind();
    }
  });

  it('fails over to the next URL, and names the cause and the setting when none answers', async () => {
    const ldap = inject('ldap');
    const failover = { ...tree.settings, DEA_LDAP_URL: `ldap://127.0.0.1:1,${ldap.ldapsUrl}` };
    expect(await directoryOf(failover).findUser('alice')).toMatchObject({ username: 'alice' });
    const down = directoryOf({ ...tree.settings, DEA_LDAP_URL: 'ldap://127.0.0.1:1' });
    await expect(down.findUser('alice')).rejects.toThrow(DirectoryUnavailableError);
    await expect(down.findUser('alice')).rejects.toThrow(/DEA_LDAP_URL/);
    const wrongCa = directoryOf({ ...tree.settings, DEA_LDAP_CA_FILE: '' });
    await expect(wrongCa.findUser('alice')).rejects.toThrow(/DEA_LDAP_CA_FILE/);
    const wrongFile = join(testFolder('bind'), 'password');
    writeFileSync(wrongFile, 'not the reader password\n', { mode: 0o600 });
    const badReader = directoryOf({ ...tree.settings, DEA_LDAP_BIND_PASSWORD_FILE: wrongFile });
    await expect(badReader.findUser('alice')).rejects.toThrow(
      /refused the service account .*DEA_LDAP_BIND_DN and DEA_LDAP_BIND_PASSWORD_FILE/,
    );
  });

  it('refuses a bind password file its group or others may read, naming it and chmod 600', () => {
    const file = join(testFolder('bind'), 'password');
    writeFileSync(file, 'the reader password\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const settings = {
      DEA_LDAP_URL: 'ldap://directory.example.com',
      DEA_LDAP_BASE_DN: 'dc=example,dc=com',
      DEA_LDAP_BIND_DN: 'cn=reader,dc=example,dc=com',
      DEA_LDAP_BIND_PASSWORD_FILE: file,
    };
    expect(() => testConfig(settings)).toThrow(
      `DEA_LDAP_BIND_PASSWORD_FILE: ${file} may be read by others than its owner (mode 0644): refused, as ssh refuses such a key; run chmod 600 ${file}`,
    );
    chmodSync(file, 0o600);
    expect(testConfig(settings).directory?.bindPassword).toBe('the reader password');
  });

  it('names every bad directory setting at start', () => {
    expect(() =>
      testConfig({
        DEA_LDAP_URL: 'http://directory.example.com',
        DEA_LDAP_BIND_DN: 'cn=reader,dc=example,dc=com',
        DEA_LDAP_BIND_PASSWORD_FILE: '/dev/null',
        DEA_LDAP_ATTRIBUTES: '{"shoeSize":"x","username":""}',
        DEA_LDAP_GROUPS: '[1]',
        DEA_LDAP_GROUP_FILTER: '(member=x)',
      }),
    ).toThrow(
      /DEA_LDAP_URL: "http:\/\/directory.example.com" must read[\s\S]*DEA_LDAP_BASE_DN: required[\s\S]*DEA_LDAP_BIND_PASSWORD_FILE: required[\s\S]*DEA_LDAP_GROUP_FILTER: must contain \{dn\}[\s\S]*"shoeSize" is not a field[\s\S]*"username" needs an attribute[\s\S]*DEA_LDAP_GROUPS: must be a JSON object/,
    );
  });
});
