import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'ldapts';
import { createPrivateCa } from './private-ca.js';
import { freePort } from './free-port.js';
import { outputLine } from './output-line.js';

/** A real OpenLDAP server (Debian's slapd) for the tests: StartTLS on ldap://, and ldaps://. */
export interface LdapServer {
  url: string;
  ldapsUrl: string;
  baseDn: string;
  adminDn: string;
  adminPassword: string;
  /** PEM file of the authority that signed the server's certificate. */
  caFile: string;
  /**
   * Stops the process with SIGSTOP: its connections stay open and nothing is answered (a hung
   * server). Resolves once every thread of it is stopped: the signal is only queued when kill
   * returns, and a request sent at once could still be answered.
   */
  pause(): Promise<void>;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /**
   * A second slapd holding a copy of this one's entries as they are now (slapcat, slapadd: the
   * same entryUUIDs, as a replica has them), with the same certificate: a second domain controller.
   */
  replica(): Promise<LdapServer>;
  stop(): Promise<void>;
}

/** Where a slapd answers and as whom to change it: what the run's global setup hands each test file. */
export type LdapServerAddress = Pick<
  LdapServer,
  'url' | 'ldapsUrl' | 'baseDn' | 'adminDn' | 'adminPassword' | 'caFile'
>;

const SLAPD = '/usr/sbin/slapd';
const SCHEMA_DIR = '/etc/ldap/schema';
const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * What slapd writes with `-d conns` once its listener thread has called listen() on every socket
 * and waits for connections ("slapd starting" comes before the listen()).
 */
const LISTENING = /daemon: \w+: listen=/;

/** Where a slapd keeps its files, and the certificate it serves. */
interface SlapdFiles {
  dir: string;
  caFile: string;
  /** Removes what is not the folder's (the authority's files). */
  dispose(): void;
}

const BASE_DN = 'dc=dea,dc=test';
const ADMIN_DN = `cn=admin,${BASE_DN}`;
const ADMIN_PASSWORD = 'admin-secret';

function writeSlapdConfig(dir: string, caFile: string): string {
  const config = join(dir, 'slapd.conf');
  const schemas = ['core', 'cosine', 'inetorgperson'].map((name) => join(SCHEMA_DIR, `${name}.schema`));
  writeFileSync(
    config,
    [
      ...schemas.map((file) => `include ${file}`),
      `include ${join(HERE, 'ldap', 'ad-attributes.schema')}`,
      `pidfile ${join(dir, 'slapd.pid')}`,
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `TLSCACertificateFile ${caFile}`,
      `TLSCertificateFile ${join(dir, 'server.pem')}`,
      `TLSCertificateKeyFile ${join(dir, 'server.key')}`,
      'sizelimit unlimited',
      'database mdb',
      'maxsize 104857600',
      `suffix "${BASE_DN}"`,
      `rootdn "${ADMIN_DN}"`,
      `rootpw ${ADMIN_PASSWORD}`,
      `directory ${join(dir, 'db')}`,
      'index objectClass,uid,sAMAccountName,userPrincipalName,member,uniqueMember eq',
      'access to attrs=userPassword by self write by anonymous auth by * none',
      'access to * by * read',
      '',
    ].join('\n'),
  );
  return config;
}

/** Whether every thread of the process is stopped (state T in /proc), asked between the event loop's turns. */
async function everyThreadStopped(pid: number): Promise<void> {
  const state = (task: string) => {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  };
  const deadline = performance.now() + 5_000;
  while (!readdirSync(`/proc/${pid}/task`).every((task) => state(task) === 'T')) {
    if (performance.now() > deadline) throw new Error(`slapd ${pid} did not stop within 5 s of SIGSTOP`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs slapd over `files` on free ports; `entries`: an LDIF loaded before it starts (else the base entry is added). */
async function runSlapd(files: SlapdFiles, entries?: string): Promise<LdapServer> {
  const { dir } = files;
  const config = writeSlapdConfig(dir, files.caFile);
  if (entries !== undefined) {
    writeFileSync(join(dir, 'entries.ldif'), entries);
    execFileSync(SLAPD, ['-T', 'add', '-q', '-f', config, '-l', join(dir, 'entries.ldif')], {
      stdio: 'pipe',
    });
  }
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  let output = '';
  const server = spawn(SLAPD, ['-f', config, '-h', `${url}/ ${ldapsUrl}/`, '-d', 'conns'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await outputLine(server, () => output, LISTENING, { what: 'slapd', deadlineMs: 45_000 }).catch(
    (error: unknown) => {
      server.kill('SIGKILL');
      throw error;
    },
  );
  // What it says of each connection from here on is read and dropped (a stream that flows on).
  server.stdout.removeAllListeners('data');
  server.stderr.removeAllListeners('data');
  if (entries === undefined) {
    const admin = new Client({ url });
    await admin.bind(ADMIN_DN, ADMIN_PASSWORD);
    await admin.add(BASE_DN, {
      objectClass: ['top', 'dcObject', 'organization'],
      dc: 'dea',
      o: 'Emergency Access tests',
    });
    await admin.unbind();
  }
  const signal = (name: NodeJS.Signals) => {
    if (server.exitCode === null) server.kill(name);
  };
  return {
    url,
    ldapsUrl,
    baseDn: BASE_DN,
    adminDn: ADMIN_DN,
    adminPassword: ADMIN_PASSWORD,
    caFile: files.caFile,
    pause: async () => {
      signal('SIGSTOP');
      if (server.pid !== undefined) await everyThreadStopped(server.pid);
    },
    resume: () => signal('SIGCONT'),
    async replica() {
      const copy = mkdtempSync(join(tmpdir(), 'dea-ldap-'));
      mkdirSync(join(copy, 'db'));
      for (const name of ['server.pem', 'server.key']) copyFileSync(join(dir, name), join(copy, name));
      copyFileSync(files.caFile, join(copy, 'ca.pem'));
      const ldif = execFileSync(SLAPD, ['-T', 'cat', '-f', config, '-b', BASE_DN], { encoding: 'utf8' });
      return runSlapd({ dir: copy, caFile: join(copy, 'ca.pem'), dispose: () => undefined }, ldif);
    },
    async stop() {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        // A paused server hears SIGTERM only once it goes on.
        server.kill('SIGCONT');
        server.kill('SIGTERM');
        await exited;
      }
      files.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts slapd on free ports with an empty tree under dc=dea,dc=test; its certificate is for
 * `certificateNames` (openssl's subjectAltName: 127.0.0.1 and localhost unless told).
 */
export async function startLdapServer(certificateNames?: string): Promise<LdapServer> {
  if (!existsSync(SLAPD)) {
    throw new Error('slapd not found at /usr/sbin/slapd: apt-get install slapd (CI installs it in .ci/run)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'dea-ldap-'));
  mkdirSync(join(dir, 'db'));
  const ca = createPrivateCa(certificateNames);
  writeFileSync(join(dir, 'server.pem'), ca.cert);
  writeFileSync(join(dir, 'server.key'), ca.key, { mode: 0o600 });
  return runSlapd({ dir, caFile: ca.caFile, dispose: () => ca.dispose() });
}
