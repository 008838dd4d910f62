import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import { afterAll, beforeAll } from 'vitest';
import { sharedSambaDc, type SambaDc } from '../testing/samba-dc.js';
import { testConfig } from '../testing/test-app.js';
import type { DirectoryConfig } from './directory-settings.js';
import { LdapDirectory } from './ldap-directory.js';

/** Active Directory's lockout after this many bad passwords (the domain's lockoutThreshold). */
export const AD_LOCKOUT_THRESHOLD = 4;

export const passwordOf = (name: string): string => `Pw-${name}-7x!`;

/** The run's domain controller as a test file sees it, once its accounts are made. */
export interface Domain {
  readonly dc: SambaDc;
  /** The server's settings for the domain, through the file's own reading account. */
  readonly settings: Record<string, string>;
  /** The file's reading account. */
  readonly reader: string;
  /** An account like the one Samba makes for BIND's DNS (dns-<dc>): a user with a service principal name. */
  readonly dnsAccount: string;
  readonly dnOf: (name: string) => string;
  /** A person of the domain, with a name of their own for this test (and an explicit principal name). */
  readonly addPerson: (prefix: string) => Promise<string>;
  /** The bad passwords the domain controller has counted for a person (badPwdCount). */
  readonly badPasswordCount: (name: string) => Promise<number>;
  readonly directoryOf: (
    extra?: Record<string, string>,
    log?: ConstructorParameters<typeof LdapDirectory>[2],
  ) => LdapDirectory;
}

/**
 * The run's domain controller (testing/samba-dc.ts), shared with active-directory.process.test.ts,
 * for the calling test file: before its tests, a reading account and a DNS-like service account
 * with names of their own (a random tag), and the domain's lockout threshold set (the domain's own
 * setting, which no other file of the run depends on). The answer is filled in before the tests.
 */
export function joinDomain(): Domain {
  const tag = randomBytes(3).toString('hex');
  const reader = `dea-reader-${tag}`;
  const dnsAccount = `dns-${tag}`;
  const readerPassword = `Rdr-${randomBytes(6).toString('hex')}!`;
  let dc: SambaDc | undefined;
  let secretDir: string | undefined;
  const settings: Record<string, string> = {};
  const controller = (): SambaDc => {
    if (dc === undefined) throw new Error('the domain controller is not started yet');
    return dc;
  };
  const dnOf = (name: string) => `CN=${name},CN=Users,${controller().baseDn}`;

  beforeAll(async () => {
    dc = await sharedSambaDc();
    await dc.admin.addUser(reader, readerPassword);
    await dc.admin.addUser(dnsAccount, `Dns-${randomBytes(6).toString('hex')}!`);
    await dc.admin.addServicePrincipalName(dnsAccount, `DNS/${dnsAccount}.dea.test`);
    await dc.admin.setLockoutThreshold(AD_LOCKOUT_THRESHOLD);
    secretDir = mkdtempSync(join(tmpdir(), 'dea-ad-bind-'));
    writeFileSync(join(secretDir, 'bind-password'), readerPassword, { mode: 0o600 });
    Object.assign(settings, {
      DEA_LDAP_URL: dc.ldapsUrl,
      DEA_LDAP_CA_FILE: dc.caFile,
      DEA_LDAP_BASE_DN: dc.baseDn,
      DEA_LDAP_BIND_DN: dnOf(reader),
      DEA_LDAP_BIND_PASSWORD_FILE: join(secretDir, 'bind-password'),
      DEA_LDAP_ACTIVE_DIRECTORY: 'true',
      DEA_LDAP_SYNC_MINUTES: '0',
      // A safety net only: the controller is the run's, and the machine may be loaded.
      DEA_LDAP_TIMEOUT_SECONDS: '60',
    });
  }, 180_000);

  afterAll(() => {
    if (secretDir !== undefined) rmSync(secretDir, { recursive: true, force: true });
  });

  return {
    get dc() {
      return controller();
    },
    settings,
    reader,
    dnsAccount,
    dnOf,
    addPerson: async (prefix) => {
      const name = `${prefix}${randomBytes(3).toString('hex')}`;
      await controller().admin.addUser(name, passwordOf(name), {
        mail: `${name}@dea.test`,
        principalName: `${name}.p@corp.example`,
      });
      return name;
    },
    badPasswordCount: async (name) => {
      const { ldapsUrl, caFile, adminDn, adminPassword } = controller();
      const client = new Client({ url: ldapsUrl, tlsOptions: { ca: readFileSync(caFile) } });
      try {
        await client.bind(adminDn, adminPassword);
        const { searchEntries } = await client.search(dnOf(name), {
          scope: 'base',
          attributes: ['badPwdCount'],
        });
        return Number(searchEntries[0]?.badPwdCount ?? 0);
      } finally {
        await client.unbind().catch(() => undefined);
      }
    },
    directoryOf: (extra = {}, log) =>
      new LdapDirectory(testConfig({ ...settings, ...extra }).directory as DirectoryConfig, Date.now, log),
  };
}
