import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'ldapts';
import { createPrivateCa } from './private-ca.js';
import { freePort } from './free-port.js';

/** A real OpenLDAP server (Debian's slapd) for the tests: StartTLS on ldap://, and ldaps://. */
export interface LdapServer {
  url: string;
  ldapsUrl: string;
  baseDn: string;
  adminDn: string;
  adminPassword: string;
  /** PEM file of the authority that signed the server's certificate. */
  caFile: string;
  stop(): Promise<void>;
}

const SLAPD = '/usr/sbin/slapd';
const SCHEMA_DIR = '/etc/ldap/schema';
const HERE = dirname(fileURLToPath(import.meta.url));

async function waitUntilReady(url: string, adminDn: string, password: string, log: () => string) {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const client = new Client({ url, connectTimeout: 1000 });
    try {
      await client.bind(adminDn, password);
      await client.unbind();
      return;
    } catch (error) {
      await client.unbind().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`slapd did not start:\n${log()}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
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
  const baseDn = 'dc=dea,dc=test';
  const adminDn = `cn=admin,${baseDn}`;
  const adminPassword = 'admin-secret';
  const schemas = ['core', 'cosine', 'inetorgperson'].map((name) => join(SCHEMA_DIR, `${name}.schema`));
  writeFileSync(
    join(dir, 'slapd.conf'),
    [
      ...schemas.map((file) => `include ${file}`),
      `include ${join(HERE, 'ldap', 'ad-attributes.schema')}`,
      `pidfile ${join(dir, 'slapd.pid')}`,
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `TLSCACertificateFile ${ca.caFile}`,
      `TLSCertificateFile ${join(dir, 'server.pem')}`,
      `TLSCertificateKeyFile ${join(dir, 'server.key')}`,
      'sizelimit unlimited',
      'database mdb',
      'maxsize 104857600',
      `suffix "${baseDn}"`,
      `rootdn "${adminDn}"`,
      `rootpw ${adminPassword}`,
      `directory ${join(dir, 'db')}`,
      'index objectClass,uid,sAMAccountName,userPrincipalName,member,uniqueMember eq',
      'access to attrs=userPassword by self write by anonymous auth by * none',
      'access to * by * read',
      '',
    ].join('\n'),
  );
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  let output = '';
  const server = spawn(SLAPD, ['-f', join(dir, 'slapd.conf'), '-h', `${url}/ ${ldapsUrl}/`, '-d', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitUntilReady(url, adminDn, adminPassword, () => output);
  const admin = new Client({ url });
  await admin.bind(adminDn, adminPassword);
  await admin.add(baseDn, {
    objectClass: ['top', 'dcObject', 'organization'],
    dc: 'dea',
    o: 'Emergency Access tests',
  });
  await admin.unbind();
  return {
    url,
    ldapsUrl,
    baseDn,
    adminDn,
    adminPassword,
    caFile: ca.caFile,
    async stop() {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
      ca.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
