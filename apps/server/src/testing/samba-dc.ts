import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Attribute, Change, Client, EqualityFilter } from 'ldapts';
import { createPrivateCa } from './private-ca.js';
import { sharedService } from './shared-services.js';

const run = promisify(execFile);

/**
 * A real Active Directory for the tests: Debian's Samba 4 as a domain controller of the domain
 * DEA (dea.test), provisioned in a folder of its own and serving LDAP (389, StartTLS) and LDAPS
 * (636) on an address of the loopback network that nothing else uses.
 */
export interface SambaDc {
  /** ldap://<address> (StartTLS) and ldaps://<address>. */
  url: string;
  ldapsUrl: string;
  address: string;
  baseDn: string;
  /** The NetBIOS name of the domain (DOMAIN\name) and its DNS name (name@realm). */
  domain: string;
  realm: string;
  /** The domain administrator (who protects nothing here: a test account). */
  adminDn: string;
  adminPassword: string;
  /** PEM file of the authority that signed the DC's certificate (for its address). */
  caFile: string;
  /**
   * The domain's administration as its administrator does it over LDAPS (what samba-tool's user,
   * group, ou, spn and passwordsettings commands write, without a samba-tool process: about 0.8
   * CPU-seconds each, 53 of them a run before).
   */
  admin: SambaDcAdmin;
  /**
   * ldbmodify of this DC's database with an LDIF text; `raw`: of the domain partition's file itself,
   * past Samba's checks (a pwdLastSet in the past, which AD lets no one write).
   */
  modify(ldif: string, options?: { raw?: boolean }): Promise<void>;
}

/** Where a new entry goes: an OU under the base DN (`OU=sales`), or the domain's CN=Users. */
export interface Placed {
  ou?: string;
}

export interface SambaDcAdmin {
  /**
   * An enabled person (userAccountControl 512) with this password: cn and sAMAccountName the name,
   * userPrincipalName name@realm unless given, as `samba-tool user add --use-username-as-cn`.
   * Returns its DN.
   */
  addUser(
    name: string,
    password: string,
    options?: Placed & { mail?: string; principalName?: string },
  ): Promise<string>;
  /** A global security group (Samba's default groupType), as `samba-tool group add`. */
  addGroup(name: string, options?: Placed): Promise<string>;
  /** An organizational unit under the base DN (`OU=sales`). */
  addOu(ou: string): Promise<void>;
  /** Members (users or groups, by sAMAccountName) added to or removed from a group. */
  addMembers(group: string, members: readonly string[]): Promise<void>;
  removeMembers(group: string, members: readonly string[]): Promise<void>;
  /** userAccountControl's ACCOUNTDISABLE bit set, as `samba-tool user disable`. */
  disableUser(name: string): Promise<void>;
  /** accountExpires now, as `samba-tool user setexpiry --days=0`. */
  expireUser(name: string): Promise<void>;
  addServicePrincipalName(name: string, spn: string): Promise<void>;
  deleteEntry(name: string): Promise<void>;
  /** The domain's lockoutThreshold, as `samba-tool domain passwordsettings set --account-lockout-threshold`. */
  setLockoutThreshold(threshold: number): Promise<void>;
}

/** Windows' time, as accountExpires holds it: 100-nanosecond intervals since 1601-01-01. */
const windowsTime = (ms: number) => String(BigInt(ms + 11_644_473_600_000) * 10_000n);

/** AD's password attribute: the password in double quotes, UTF-16LE (written only over TLS). */
const unicodePwd = (password: string) =>
  new Attribute({ type: 'unicodePwd', values: [Buffer.from(`"${password}"`, 'utf16le')] });

function administration(reach: Omit<SambaDcPlaces, 'dir'>): SambaDcAdmin {
  const { baseDn, realm } = reach;
  let ca: Buffer | undefined;
  /** One bound connection per change: opened, used, closed (nothing left open in a test file). */
  async function asAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
    ca ??= readFileSync(reach.caFile);
    const client = new Client({ url: reach.ldapsUrl, tlsOptions: { ca } });
    try {
      await client.bind(reach.adminDn, reach.adminPassword);
      return await work(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
  const containerOf = (options: Placed = {}) =>
    options.ou === undefined ? `CN=Users,${baseDn}` : `${options.ou},${baseDn}`;
  async function dnOf(client: Client, name: string): Promise<string> {
    const { searchEntries } = await client.search(baseDn, {
      filter: new EqualityFilter({ attribute: 'sAMAccountName', value: name }),
      attributes: ['distinguishedName'],
    });
    const [entry] = searchEntries;
    if (entry === undefined || searchEntries.length > 1)
      throw new Error(`${searchEntries.length} entries of the DC have sAMAccountName ${name}`);
    return entry.dn;
  }
  const change = (operation: 'add' | 'delete' | 'replace', type: string, values: string[]) =>
    new Change({ operation, modification: new Attribute({ type, values }) });
  const changeMembers = (operation: 'add' | 'delete') => (group: string, members: readonly string[]) =>
    asAdmin(async (client) => {
      const dns = await Promise.all(members.map((member) => dnOf(client, member)));
      await client.modify(await dnOf(client, group), change(operation, 'member', dns));
    });
  return {
    addUser: (name, password, options = {}) =>
      asAdmin(async (client) => {
        const dn = `CN=${name},${containerOf(options)}`;
        await client.add(dn, [
          new Attribute({ type: 'objectClass', values: ['top', 'person', 'organizationalPerson', 'user'] }),
          new Attribute({ type: 'sAMAccountName', values: [name] }),
          new Attribute({ type: 'userPrincipalName', values: [options.principalName ?? `${name}@${realm}`] }),
          ...(options.mail === undefined ? [] : [new Attribute({ type: 'mail', values: [options.mail] })]),
          unicodePwd(password),
          new Attribute({ type: 'userAccountControl', values: ['512'] }),
        ]);
        return dn;
      }),
    addGroup: (name, options = {}) =>
      asAdmin(async (client) => {
        const dn = `CN=${name},${containerOf(options)}`;
        await client.add(dn, {
          objectClass: ['top', 'group'],
          sAMAccountName: name,
        });
        return dn;
      }),
    addOu: (ou) =>
      asAdmin((client) => client.add(`${ou},${baseDn}`, { objectClass: ['top', 'organizationalUnit'] })),
    addMembers: changeMembers('add'),
    removeMembers: changeMembers('delete'),
    disableUser: (name) =>
      asAdmin(async (client) => {
        const dn = await dnOf(client, name);
        const { searchEntries } = await client.search(dn, {
          scope: 'base',
          attributes: ['userAccountControl'],
        });
        const flags = Number(searchEntries[0]?.userAccountControl ?? 512);
        await client.modify(dn, change('replace', 'userAccountControl', [String(flags | 2)]));
      }),
    expireUser: (name) =>
      asAdmin(async (client) =>
        client.modify(
          await dnOf(client, name),
          change('replace', 'accountExpires', [windowsTime(Date.now())]),
        ),
      ),
    addServicePrincipalName: (name, spn) =>
      asAdmin(async (client) =>
        client.modify(await dnOf(client, name), change('add', 'servicePrincipalName', [spn])),
      ),
    deleteEntry: (name) => asAdmin(async (client) => client.del(await dnOf(client, name))),
    setLockoutThreshold: (threshold) =>
      asAdmin((client) => client.modify(baseDn, change('replace', 'lockoutThreshold', [String(threshold)]))),
  };
}

/** What a test file needs to reach the run's DC and change its database (JSON, from the main process). */
export interface SambaDcPlaces {
  url: string;
  ldapsUrl: string;
  address: string;
  baseDn: string;
  domain: string;
  realm: string;
  adminDn: string;
  adminPassword: string;
  caFile: string;
  /** The DC's folder: its smb.conf, the provisioned database under dc/, LDIF files of modify(). */
  dir: string;
}

const SAMBA = '/usr/sbin/samba';
const SAMBA_TOOL = '/usr/bin/samba-tool';
const LDBMODIFY = '/usr/bin/ldbmodify';

/**
 * Samba's LDAP server listens on 389 and 636 whatever smb.conf says; a DC of its own per test run
 * takes an address of 127.0.0.0/8 that no one listens on (Linux answers every address of it on lo).
 */
async function freeLoopbackAddress(): Promise<string> {
  for (let tries = 0; tries < 50; tries += 1) {
    const address = `127.${100 + Math.floor(Math.random() * 150)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(389, address, () => server.close(() => resolve(true)));
    });
    if (free) return address;
  }
  throw new Error(
    'port 389 is taken on every address of 127.0.0.0/8 tried for the Samba DC: a directory of the host listening on all addresses (samba or slapd on 0.0.0.0:389)? The tests need it to listen on 127.0.0.1 only, or not at all',
  );
}

/** Ready once its rootDSE answers (what every LDAP client asks first). */
async function waitUntilReady(url: string, exited: () => boolean, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const client = new Client({ url, connectTimeout: 1000, timeout: 5000 });
    try {
      const { searchEntries } = await client.search('', {
        scope: 'base',
        attributes: ['defaultNamingContext'],
      });
      if (searchEntries.length === 1) return;
    } catch (error) {
      if (exited() || Date.now() > deadline)
        throw new Error(`samba did not start:\n${log()}`, { cause: error });
    } finally {
      await client.unbind().catch(() => undefined);
    }
    // A poll: samba (-i or -F, up to -d 5) writes nothing once it listens, nor a file or pid file after.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Provisions a domain controller (`samba-tool domain provision --use-rfc2307
 * --server-role=dc --dns-backend=SAMBA_INTERNAL`, about 5 CPU-seconds) and starts `samba -i` with
 * only its LDAP service. Needs root (Samba binds port 389) and Debian's samba and ldb-tools
 * (.ci/run). Started once per run by testing/global-setup.ts, when a file first asks for it
 * (`sharedSambaDc`); each file keeps to names, or an OU, of its own.
 */
export async function startSambaDc(): Promise<SambaDcPlaces & { stop(): Promise<void> }> {
  for (const program of [SAMBA, SAMBA_TOOL, LDBMODIFY]) {
    if (!existsSync(program))
      throw new Error(`${program} not found: apt-get install samba ldb-tools (CI installs them in .ci/run)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'dea-samba-'));
  const target = join(dir, 'dc');
  const address = await freeLoopbackAddress();
  const adminPassword = 'Adm1n-Passw0rd!';
  const domain = 'DEA';
  const realm = 'dea.test';
  await run(SAMBA_TOOL, [
    'domain',
    'provision',
    '--use-rfc2307',
    '--server-role=dc',
    '--dns-backend=SAMBA_INTERNAL',
    `--realm=${realm.toUpperCase()}`,
    `--domain=${domain}`,
    '--host-name=dc1',
    `--adminpass=${adminPassword}`,
    `--targetdir=${target}`,
    `--option=interfaces=${address}/8`,
    '--option=bind interfaces only=yes',
  ]);
  const ca = createPrivateCa(`IP:${address}`);
  const tls = join(dir, 'tls');
  mkdirSync(tls);
  writeFileSync(join(tls, 'cert.pem'), ca.cert);
  writeFileSync(join(tls, 'key.pem'), ca.key, { mode: 0o600 });
  mkdirSync(join(dir, 'run'));
  const conf = join(dir, 'smb.conf');
  writeFileSync(
    conf,
    [
      `include = ${join(target, 'etc', 'smb.conf')}`,
      '[global]',
      `interfaces = ${address}/8`,
      'bind interfaces only = yes',
      // Nothing but LDAP: no SMB, Kerberos, DNS or winbind to start or to clash with the host's.
      'server services = ldap',
      `pid directory = ${join(dir, 'run')}`,
      `ncalrpc dir = ${join(dir, 'run', 'ncalrpc')}`,
      `log file = ${join(dir, 'log.%m')}`,
      `tls certfile = ${join(tls, 'cert.pem')}`,
      `tls keyfile = ${join(tls, 'key.pem')}`,
      `tls cafile = ${ca.caFile}`,
      '',
    ].join('\n'),
  );
  let output = '';
  const server = spawn(SAMBA, ['-i', '-M', 'single', '-s', conf, '-d', '1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `ldap://${address}`;
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    ca.dispose();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(
      url,
      () => server.exitCode !== null,
      () => output,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const baseDn = 'DC=dea,DC=test';
  return {
    url,
    ldapsUrl: `ldaps://${address}`,
    address,
    baseDn,
    domain,
    realm,
    adminDn: `CN=Administrator,CN=Users,${baseDn}`,
    adminPassword,
    caFile: ca.caFile,
    dir,
    stop,
  };
}

/** The DC at `places`, administered over LDAPS and with ldbmodify run from this process. */
export function sambaDcAt(places: SambaDcPlaces): SambaDc {
  const { dir, ...reach } = places;
  const target = join(dir, 'dc');
  return {
    ...reach,
    admin: administration(reach),
    async modify(ldif: string, options: { raw?: boolean } = {}) {
      const file = join(dir, `change-${process.pid}-${Date.now()}-${Math.random()}.ldif`);
      writeFileSync(file, ldif);
      const database =
        options.raw === true
          ? `tdb://${join(target, 'private', 'sam.ldb.d', `${places.baseDn.toUpperCase()}.ldb`)}`
          : join(target, 'private', 'sam.ldb');
      try {
        await run(LDBMODIFY, ['-H', database, file]);
      } finally {
        rmSync(file, { force: true });
      }
    },
  };
}

/** The run's domain controller, provisioned and started the first time a file of the run asks. */
export async function sharedSambaDc(): Promise<SambaDc> {
  return sambaDcAt(await sharedService<SambaDcPlaces>('samba-dc'));
}
