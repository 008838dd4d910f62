import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attribute, Client } from 'ldapts';
import type { LdapServerAddress } from './ldap-server.js';

/** The people of a test directory, as an organisation would have them. */
export const DIRECTORY_PEOPLE = {
  /** inetOrgPerson, in the staff group (and so, nested, in vpn). */
  alice: {
    uid: 'alice',
    cn: 'Alice Archer',
    password: 'alice-directory-pw',
    mail: 'alice@dea.test',
    mobile: '+49 170 5550101',
    telephoneNumber: '+49 30 5550101',
  },
  /** inetOrgPerson, a contractor: no mapped group of staff. */
  bob: {
    uid: 'bob',
    cn: 'Bob Baker',
    password: 'bob-directory-pw',
    mail: 'bob@dea.test',
    mobile: '',
    telephoneNumber: '',
  },
  /** Active Directory style (sAMAccountName, userPrincipalName, userAccountControl 512), staff. */
  carol: {
    uid: 'carol',
    cn: 'Carol Cruz',
    password: 'carol-directory-pw',
    mail: 'carol@dea.test',
    mobile: '+44 7700 900123',
    telephoneNumber: '',
  },
  /** Active Directory style, disabled (userAccountControl 514). */
  dave: {
    uid: 'dave',
    cn: 'Dave Dunn',
    password: 'dave-directory-pw',
    mail: 'dave@dea.test',
    mobile: '+49 170 5550104',
    telephoneNumber: '',
  },
} as const;

export type DirectoryPerson = keyof typeof DIRECTORY_PEOPLE;

export interface LdapTree {
  /** The subtree of this test: everything it made is under it. */
  baseDn: string;
  dnOf(person: DirectoryPerson): string;
  groupDn(name: 'staff' | 'vpn' | 'contractors'): string;
  /** Settings for a product reading this subtree: StartTLS with the private CA, a reader account. */
  settings: Record<string, string>;
  /** The administrator's connection, to change the directory during a test. */
  admin(): Promise<Client>;
  dispose(): Promise<void>;
}

/** An entry's attributes as ldapts sends them; a Buffer is a binary value (objectGUID). */
function asAttributes(record: Record<string, string | string[] | Buffer>): Attribute[] {
  return Object.entries(record).map(
    ([type, value]) =>
      new Attribute({
        type,
        values: Buffer.isBuffer(value) ? [value] : Array.isArray(value) ? value : [value],
      }),
  );
}

const AD_DISABLED = '514';
const AD_NORMAL = '512';

/**
 * A fresh subtree on the run's slapd: people (two inetOrgPerson, two Active Directory style, one
 * of them disabled), groups vpn <- staff <- alice, carol (nested) and contractors <- bob, and a
 * read-only service account. `ldap` is the run's server (Vitest: `inject('ldap')`).
 */
export async function createLdapTree(ldap: LdapServerAddress): Promise<LdapTree> {
  const baseDn = `ou=t${randomUUID().slice(0, 8)},${ldap.baseDn}`;
  const dnOf = (person: DirectoryPerson) => `uid=${person},ou=people,${baseDn}`;
  const groupDn = (name: string) => `cn=${name},ou=groups,${baseDn}`;
  const readerDn = `cn=reader,${baseDn}`;
  const readerPassword = randomBytes(12).toString('hex');
  const admin = async () => {
    const client = new Client({ url: ldap.url });
    await client.bind(ldap.adminDn, ldap.adminPassword);
    return client;
  };
  const client = await admin();
  try {
    await client.add(baseDn, {
      objectClass: ['organizationalUnit'],
      ou: baseDn.slice(3, baseDn.indexOf(',')),
    });
    await client.add(`ou=people,${baseDn}`, { objectClass: ['organizationalUnit'], ou: 'people' });
    await client.add(`ou=groups,${baseDn}`, { objectClass: ['organizationalUnit'], ou: 'groups' });
    await client.add(readerDn, {
      objectClass: ['organizationalRole', 'simpleSecurityObject'],
      cn: 'reader',
      userPassword: readerPassword,
    });
    for (const [name, person] of Object.entries(DIRECTORY_PEOPLE)) {
      const activeDirectory = name === 'carol' || name === 'dave';
      const optional = (attribute: string, value: string) => (value === '' ? {} : { [attribute]: value });
      await client.add(
        dnOf(name as DirectoryPerson),
        asAttributes({
          objectClass: ['inetOrgPerson', ...(activeDirectory ? ['user'] : [])],
          uid: person.uid,
          cn: person.cn,
          sn: person.cn.split(' ')[1] ?? person.cn,
          displayName: person.cn,
          userPassword: person.password,
          mail: person.mail,
          ...optional('mobile', person.mobile),
          ...optional('telephoneNumber', person.telephoneNumber),
          ...(activeDirectory && {
            sAMAccountName: `${person.uid}.ad`,
            userPrincipalName: `${person.uid}@dea.test`,
            userAccountControl: name === 'dave' ? AD_DISABLED : AD_NORMAL,
            objectGUID: randomBytes(16),
          }),
        }),
      );
    }
    await client.add(groupDn('staff'), {
      objectClass: ['groupOfNames'],
      cn: 'staff',
      member: [dnOf('alice'), dnOf('carol'), dnOf('dave')],
    });
    await client.add(groupDn('vpn'), {
      objectClass: ['groupOfNames'],
      cn: 'vpn',
      member: [groupDn('staff')],
    });
    await client.add(groupDn('contractors'), {
      objectClass: ['groupOfNames'],
      cn: 'contractors',
      member: [dnOf('bob')],
    });
  } finally {
    await client.unbind();
  }
  const secretDir = mkdtempSync(join(tmpdir(), 'dea-ldap-bind-'));
  const passwordFile = join(secretDir, 'bind-password');
  writeFileSync(passwordFile, `${readerPassword}\n`, { mode: 0o600 });
  return {
    baseDn,
    dnOf,
    groupDn,
    settings: {
      DEA_LDAP_URL: ldap.url,
      DEA_LDAP_CA_FILE: ldap.caFile,
      DEA_LDAP_BASE_DN: baseDn,
      DEA_LDAP_BIND_DN: readerDn,
      DEA_LDAP_BIND_PASSWORD_FILE: passwordFile,
      DEA_LDAP_GROUPS: JSON.stringify({ [groupDn('vpn')]: 'VPN', [groupDn('contractors')]: 'Contractors' }),
      DEA_LDAP_SYNC_MINUTES: '0',
    },
    admin,
    async dispose() {
      const cleaner = await admin();
      try {
        const { searchEntries } = await cleaner.search(baseDn, { scope: 'sub', attributes: ['1.1'] });
        // Deepest first: a parent can only go once its children have.
        for (const { dn } of searchEntries.sort((a, b) => b.dn.split(',').length - a.dn.split(',').length)) {
          await cleaner.del(dn);
        }
      } finally {
        await cleaner.unbind();
      }
      rmSync(secretDir, { recursive: true, force: true });
    },
  };
}
