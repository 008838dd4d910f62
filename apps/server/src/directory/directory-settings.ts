import { readFileSync } from 'node:fs';
import { CHANNEL_KEYS } from '@dea/contract';
import type { Filter } from 'ldapts';
import Type from 'typebox';
import { OpenPrivateFileError, readPrivateFileSync } from '../files/private-files.js';
import type { SettingValues } from '../setting-values.js';
import { allOf, equals, MEMBER_PLACEHOLDER, namesMember, not, parseFilter, present } from './ldap-filters.js';

/** The settings of the organisation's LDAP directory or Active Directory as a source of users. */
export const directorySettings = {
  DEA_LDAP_URL: {
    schema: Type.String({ default: '' }),
    doc: 'The directory: ldaps://host:636 or ldap://host:389 (then StartTLS, see DEA_LDAP_STARTTLS); several, comma-separated, are tried in order (failover). Empty: no directory, only local users.',
  },
  DEA_LDAP_STARTTLS: {
    schema: Type.Boolean({ default: true }),
    doc: 'Upgrade ldap:// connections with StartTLS before anything is sent. false sends bind passwords in clear: only for a directory on the same host.',
  },
  DEA_LDAP_TLS_SERVER_NAME: {
    schema: Type.String({ default: '' }),
    doc: "The name the directory's certificate must carry, for ldaps:// and StartTLS; empty: the host of each DEA_LDAP_URL, an address or a name (a certificate for dc1.example.com with ldap://10.1.2.3 then needs dc1.example.com here).",
  },
  DEA_LDAP_CA_FILE: {
    schema: Type.String({ default: '' }),
    doc: "PEM file of the certificate authorities the directory's certificate is checked against; empty: the system's.",
  },
  DEA_LDAP_BIND_DN: {
    schema: Type.String({ default: '' }),
    doc: 'DN of the service account that searches the directory (read access to users and groups); empty: anonymous search.',
  },
  DEA_LDAP_BIND_PASSWORD_FILE: {
    schema: Type.String({ default: '' }),
    doc: "File holding that account's password (read once at start, never logged); refused when its group or others may read it (chmod 600).",
  },
  DEA_LDAP_BASE_DN: {
    schema: Type.String({ default: '' }),
    doc: 'Where users and groups are searched (subtree), e.g. dc=example,dc=com. Required with DEA_LDAP_URL.',
  },
  DEA_LDAP_ACTIVE_DIRECTORY: {
    schema: Type.Boolean({ default: false }),
    doc: 'Active Directory defaults: users are people (the default of DEA_LDAP_USER_FILTER), identified by objectGUID, named by sAMAccountName, disabled by bit 2 of userAccountControl, full name displayName. Each can still be set by DEA_LDAP_USER_FILTER and DEA_LDAP_ATTRIBUTES (userPrincipalName as user name, say).',
  },
  DEA_LDAP_AD_PROTECTED_ADMINS: {
    schema: Type.Boolean({ default: false }),
    doc: 'Active Directory: let accounts AD protects as administrators (adminCount=1: Domain Admins, Enterprise Admins, Administrators and the like) be users of the product. false: they are left out of every search whatever DEA_LDAP_USER_FILTER says, so their passwords are never sent here. When true, the start asks the directory which accounts the filter then takes in and warns, naming them.',
  },
  DEA_LDAP_AD_DOMAIN: {
    schema: Type.String({ default: '' }),
    doc: 'Active Directory: the NetBIOS name of the domain, taken before a backslash at sign-in (DEA\\alice). Users sign in by sAMAccountName, userPrincipalName (or name@ the domain of DEA_LDAP_BASE_DN) or DOMAIN\\name, all the same person; empty: the first DC= of DEA_LDAP_BASE_DN.',
  },
  DEA_LDAP_USER_FILTER: {
    schema: Type.String({ default: '' }),
    doc: 'LDAP filter of the users that may use the product; empty: (objectClass=inetOrgPerson), or on Active Directory (&(objectClass=user)(!(objectClass=computer))(!(isCriticalSystemObject=TRUE))(!(servicePrincipalName=*))): no computers or managed service accounts, no Administrator, Guest or krbtgt, no service accounts. The service account (DEA_LDAP_BIND_DN) is never a user, and on Active Directory protected administrators are left out of any filter (see DEA_LDAP_AD_PROTECTED_ADMINS). The user name attribute is added to it at sign-in.',
  },
  DEA_LDAP_ATTRIBUTES: {
    schema: Type.String({ default: '' }),
    doc: 'JSON map from the product\'s fields to directory attributes, merged over the defaults {"id":"entryUUID","username":"uid","fullName":"cn","email":"mail","mobile":"mobile","telephone":"telephoneNumber"}. Fields: id, username, fullName, locale, timeZone, disabled and the eight channel keys (mobile, personalMobile, email, personalEmail, telephone, personalTelephone, twitter, personalTwitter); "" leaves one out.',
  },
  DEA_LDAP_GROUPS: {
    schema: Type.String({ default: '' }),
    doc: 'JSON map from directory group DNs to product groups, whose policy then applies: {"cn=vpn,ou=groups,dc=example,dc=com":"VPN"}. Membership in a mapped group is kept as the directory says; nested groups count.',
  },
  DEA_LDAP_GROUP_FILTER: {
    schema: Type.String({ default: '(|(member={dn})(uniqueMember={dn}))' }),
    doc: 'Filter of the groups a DN is a direct member of ({dn} is replaced, escaped). Active Directory can resolve nesting at once with (member:1.2.840.113556.1.4.1941:={dn}).',
  },
  DEA_LDAP_NESTED_GROUPS: {
    schema: Type.Boolean({ default: true }),
    doc: 'Follow groups that are members of groups (at most 10 levels deep).',
  },
  DEA_LDAP_SYNC_MINUTES: {
    schema: Type.Integer({ minimum: 0, maximum: 10_080, default: 60 }),
    doc: 'How often every instance brings directory users up to date in the background (one at a time across instances): it reads only what changed since the last sync (entryCSN or modifyTimestamp; on Active Directory uSNChanged on the same domain controller), and everyone at DEA_LDAP_FULL_SYNC_HOURS; 0: only at sign-in and with dea directory sync.',
  },
  DEA_LDAP_FULL_SYNC_HOURS: {
    schema: Type.Integer({ minimum: 1, maximum: 8760, default: 24 }),
    doc: 'A sync reads every user (and disables those the directory no longer lists) when the last such full pass is this old; in between it reads only what changed, which cannot see a removed entry. Also a full pass: the first sync, another domain controller answering on Active Directory, changed directory settings, and dea directory sync --full.',
  },
  DEA_LDAP_SYNC_LOG_USERS: {
    schema: Type.Integer({ minimum: 0, maximum: 100_000, default: 100 }),
    doc: 'A sync logs one line at warn for each user it could not write or left out, and why, up to this many; then one line with how many more there were. dea directory sync prints every one of them.',
  },
  DEA_LDAP_PAGE_SIZE: {
    schema: Type.Integer({ minimum: 10, maximum: 5000, default: 500 }),
    doc: 'Users read per page of a sync (RFC 2696 paged results).',
  },
  DEA_LDAP_TIMEOUT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 120, default: 5 }),
    doc: 'Longest wait for the directory to connect, upgrade with StartTLS or answer one operation (on a new connection or a kept one); a URL that does not is passed over (DEA_LDAP_DEAD_SERVER_SECONDS) and the work goes on at the next URL.',
  },
  DEA_LDAP_POOL_SIZE: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 4 }),
    doc: "Connections bound as the service account (DEA_LDAP_BIND_DN) that each instance keeps open and reuses for its searches; a search beyond them waits for one. A connection that fails is dropped and a new one opened. Users' own binds (password checks) use connections of their own.",
  },
  DEA_LDAP_DEAD_SERVER_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
    doc: 'A directory URL that was refused or did not answer in time is passed over for this long: sign-ins, syncs and the console go to the next URL at once. Then a probe in the background (no request waits on it) connects and has the server answer, a bind as the service account or a read of its root DSE, over TLS where the URL uses it; the URL is used again only once it answered. When every URL is passed over, all are tried in order.',
  },
} as const;

/** An operator's filter setting read (a problem when it is not one: every entry meanwhile). */
function settingFilter(name: string, text: string, problems: string[]): Filter {
  const read = parseFilter(text);
  if ('filter' in read) return read.filter;
  problems.push(`${name}: ${read.problem}`);
  return present('objectClass');
}

/**
 * Active Directory's people: users that are not computers (nor managed service accounts, which are
 * computers), not critical system objects (Administrator, Guest, krbtgt) and without a service
 * principal name (service accounts such as Samba's dns-<dc>).
 */
export const ACTIVE_DIRECTORY_USER_FILTER =
  '(&(objectClass=user)(!(objectClass=computer))(!(isCriticalSystemObject=TRUE))(!(servicePrincipalName=*)))';

/** The product fields a directory attribute can fill. */
export const DIRECTORY_FIELDS = [
  'id',
  'username',
  'fullName',
  'locale',
  'timeZone',
  'disabled',
  ...CHANNEL_KEYS,
] as const;
export type DirectoryField = (typeof DIRECTORY_FIELDS)[number];

export type AttributeMap = Readonly<Partial<Record<DirectoryField, string>>>;

export interface DirectoryConfig {
  urls: string[];
  startTls: boolean;
  /** PEM of the CA file; undefined: the system's CAs. */
  ca: string | undefined;
  /** The name the certificate must carry; undefined: each URL's host. */
  tlsServerName: string | undefined;
  bindDn: string;
  bindPassword: string;
  baseDn: string;
  /** Who is a user (DEA_LDAP_USER_FILTER or its default; on Active Directory without protected administrators unless allowed). */
  userFilter: Filter;
  /** DEA_LDAP_ACTIVE_DIRECTORY. */
  activeDirectory: boolean;
  /** Active Directory: the domain's NetBIOS name (DEA_LDAP_AD_DOMAIN), lower case. */
  netbiosDomain: string;
  /** The DNS name of the base DN's domain, lower case (name@realm is an implicit principal name). */
  realm: string;
  /** Service-account connections kept open (DEA_LDAP_POOL_SIZE). */
  poolSize: number;
  /** Active Directory with DEA_LDAP_AD_PROTECTED_ADMINS: protected administrators may sign in (the start warns). */
  protectedAdminsAllowed: boolean;
  attributes: AttributeMap;
  /** Directory group DN (lower case) -> product group name. */
  groups: ReadonlyMap<string, string>;
  /** The groups of a member (DEA_LDAP_GROUP_FILTER), its `{dn}` terms filled by ldap-filters.ts `groupsOfMember`. */
  groupFilter: Filter;
  nestedGroups: boolean;
  syncMs: number;
  /** How old the last full pass may be before a sync reads everyone again. */
  fullSyncMs: number;
  /** Users a sync names in the log, each on its own line, before it only counts them. */
  syncLogUsers: number;
  pageSize: number;
  timeoutMs: number;
  deadServerMs: number;
}

const LDAP_DEFAULTS: AttributeMap = {
  id: 'entryUUID',
  username: 'uid',
  fullName: 'cn',
  email: 'mail',
  mobile: 'mobile',
  telephone: 'telephoneNumber',
};
const ACTIVE_DIRECTORY_DEFAULTS: AttributeMap = {
  ...LDAP_DEFAULTS,
  id: 'objectGUID',
  username: 'sAMAccountName',
  fullName: 'displayName',
  disabled: 'userAccountControl',
};

function jsonObject(name: string, text: string, problems: string[]): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  problems.push(
    `${name}: must be a JSON object such as ${name === 'DEA_LDAP_GROUPS' ? '{"cn=vpn,ou=groups,dc=example,dc=com":"VPN"}' : '{"username":"sAMAccountName"}'}`,
  );
  return {};
}

function attributeMapOf(values: DirectoryValues, problems: string[]): AttributeMap {
  const defaults = values.DEA_LDAP_ACTIVE_DIRECTORY ? ACTIVE_DIRECTORY_DEFAULTS : LDAP_DEFAULTS;
  const map: Partial<Record<DirectoryField, string>> = { ...defaults };
  for (const [field, attribute] of Object.entries(
    jsonObject('DEA_LDAP_ATTRIBUTES', values.DEA_LDAP_ATTRIBUTES, problems),
  )) {
    if (!(DIRECTORY_FIELDS as readonly string[]).includes(field)) {
      problems.push(`DEA_LDAP_ATTRIBUTES: "${field}" is not a field (one of ${DIRECTORY_FIELDS.join(', ')})`);
    } else if (typeof attribute !== 'string' || !/^$|^[A-Za-z][A-Za-z0-9-]*$/.test(attribute)) {
      problems.push(
        `DEA_LDAP_ATTRIBUTES: the attribute of "${field}" must be an attribute name such as mail`,
      );
    } else if (attribute === '') {
      delete map[field as DirectoryField];
    } else {
      map[field as DirectoryField] = attribute;
    }
  }
  for (const required of ['id', 'username'] as const) {
    if (map[required] === undefined) problems.push(`DEA_LDAP_ATTRIBUTES: "${required}" needs an attribute`);
  }
  return map;
}

function groupMapOf(text: string, problems: string[]): Map<string, string> {
  const groups = new Map<string, string>();
  for (const [dn, group] of Object.entries(jsonObject('DEA_LDAP_GROUPS', text, problems))) {
    if (typeof group !== 'string' || group.trim() === '') {
      problems.push(`DEA_LDAP_GROUPS: the product group of "${dn}" must be a group name`);
    } else {
      groups.set(normalizeDn(dn), group.trim());
    }
  }
  return groups;
}

/** The DNS name of a base DN's domain: DC=corp,DC=example,DC=com -> corp.example.com. */
export function realmOf(baseDn: string): string {
  return [...baseDn.matchAll(/(?:^|,)\s*dc\s*=\s*([^,]+)/gi)]
    .map((match) => (match[1] ?? '').trim().toLowerCase())
    .join('.');
}

/** One spelling per DN for comparisons: no blanks around separators, lower case. */
export function normalizeDn(dn: string): string {
  return dn
    .split(/(?<!\\),/)
    .map((part) => part.trim().replace(/\s*=\s*/, '='))
    .join(',')
    .toLowerCase();
}

type DirectoryValues = SettingValues<typeof directorySettings>;

/** The directory part of the configuration; undefined when no directory is set. */
export function directoryConfigOf(values: DirectoryValues, problems: string[]): DirectoryConfig | undefined {
  const urls = values.DEA_LDAP_URL.split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  if (urls.length === 0) return undefined;
  for (const url of urls) {
    if (!/^ldaps?:\/\/[^\s/]+\/?$/i.test(url))
      problems.push(`DEA_LDAP_URL: "${url}" must read ldaps://host[:port] or ldap://host[:port]`);
  }
  if (values.DEA_LDAP_BASE_DN.trim() === '')
    problems.push('DEA_LDAP_BASE_DN: required with DEA_LDAP_URL (dc=example,dc=com)');
  const readFile = (name: string, path: string): string => {
    if (path === '') return '';
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      problems.push(`${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return '';
    }
  };
  const readSecretFile = (name: string, path: string): string => {
    if (path === '') return '';
    try {
      return readPrivateFileSync(path).toString('utf8');
    } catch (error) {
      problems.push(
        error instanceof OpenPrivateFileError
          ? `${name}: ${error.message}`
          : `${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return '';
    }
  };
  const bindPassword = readSecretFile(
    'DEA_LDAP_BIND_PASSWORD_FILE',
    values.DEA_LDAP_BIND_PASSWORD_FILE,
  ).replace(/\r?\n$/, '');
  if (values.DEA_LDAP_BIND_DN !== '' && bindPassword === '')
    problems.push(
      'DEA_LDAP_BIND_PASSWORD_FILE: required with DEA_LDAP_BIND_DN (a file holding its password)',
    );
  const ca = readFile('DEA_LDAP_CA_FILE', values.DEA_LDAP_CA_FILE);
  const groupFilter = settingFilter('DEA_LDAP_GROUP_FILTER', values.DEA_LDAP_GROUP_FILTER, problems);
  if (!namesMember(groupFilter))
    problems.push(
      `DEA_LDAP_GROUP_FILTER: must contain ${MEMBER_PLACEHOLDER}, the member whose groups are searched, as a whole value: (member=${MEMBER_PLACEHOLDER})`,
    );
  const activeDirectory = values.DEA_LDAP_ACTIVE_DIRECTORY;
  const chosenFilter = settingFilter(
    'DEA_LDAP_USER_FILTER',
    values.DEA_LDAP_USER_FILTER.trim() ||
      (activeDirectory ? ACTIVE_DIRECTORY_USER_FILTER : '(objectClass=inetOrgPerson)'),
    problems,
  );
  // Whatever the filter, on Active Directory an account AD protects as an administrator is not a
  // user of the product unless allowed (nor, on any directory, the service account: ldap-directory.ts).
  const userFilter =
    activeDirectory && !values.DEA_LDAP_AD_PROTECTED_ADMINS
      ? allOf(chosenFilter, not(equals('adminCount', '1')))
      : chosenFilter;
  return {
    urls,
    startTls: values.DEA_LDAP_STARTTLS,
    ca: ca === '' ? undefined : ca,
    tlsServerName: values.DEA_LDAP_TLS_SERVER_NAME.trim() || undefined,
    bindDn: values.DEA_LDAP_BIND_DN,
    bindPassword,
    baseDn: values.DEA_LDAP_BASE_DN.trim(),
    userFilter,
    activeDirectory,
    netbiosDomain: (
      values.DEA_LDAP_AD_DOMAIN.trim() ||
      realmOf(values.DEA_LDAP_BASE_DN).split('.')[0] ||
      ''
    ).toLowerCase(),
    realm: realmOf(values.DEA_LDAP_BASE_DN),
    poolSize: values.DEA_LDAP_POOL_SIZE,
    protectedAdminsAllowed: activeDirectory && values.DEA_LDAP_AD_PROTECTED_ADMINS,
    attributes: attributeMapOf(values, problems),
    groups: groupMapOf(values.DEA_LDAP_GROUPS, problems),
    groupFilter,
    nestedGroups: values.DEA_LDAP_NESTED_GROUPS,
    syncMs: values.DEA_LDAP_SYNC_MINUTES * 60_000,
    fullSyncMs: values.DEA_LDAP_FULL_SYNC_HOURS * 3_600_000,
    syncLogUsers: values.DEA_LDAP_SYNC_LOG_USERS,
    pageSize: values.DEA_LDAP_PAGE_SIZE,
    timeoutMs: values.DEA_LDAP_TIMEOUT_SECONDS * 1000,
    deadServerMs: values.DEA_LDAP_DEAD_SERVER_SECONDS * 1000,
  };
}
