import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLdapServer, type LdapServer } from './ldap-server.js';
import { startPostgresCluster } from './postgres-cluster.js';
import { buildSharedRelease } from './release.js';
import { startSambaDc } from './samba-dc.js';
import { startSharedServices } from './shared-services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** The run's OpenLDAP server; each test builds its own subtree (testing/ldap-tree.ts). */
    ldap: Omit<LdapServer, 'stop'>;
    /** Where a file asks for what is made once per run, when first needed (testing/shared-services.ts). */
    sharedServices: string;
  }
}

/**
 * One PostgreSQL server (or TEST_DATABASE_URL) and one OpenLDAP server for the whole run; each
 * test file makes its own database, each directory test its own subtree. The Samba domain
 * controller and the release artifacts are made once per run as well, the first time a file asks
 * (testing/shared-services.ts): a run without the files that need them does not make them.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TEST_DATABASE_URL;
  const [cluster, ldap] = await Promise.all([given ? undefined : startPostgresCluster(), startLdapServer()]);
  project.provide('postgresUrl', given ?? cluster?.url ?? '');
  project.provide('ldap', {
    url: ldap.url,
    ldapsUrl: ldap.ldapsUrl,
    baseDn: ldap.baseDn,
    adminDn: ldap.adminDn,
    adminPassword: ldap.adminPassword,
    caFile: ldap.caFile,
  });
  const cleanups: (() => Promise<void>)[] = [];
  const releases = mkdtempSync(join(tmpdir(), 'dea-releases-'));
  cleanups.push(async () => rmSync(releases, { recursive: true, force: true }));
  const shared = await startSharedServices(
    {
      'samba-dc': async () => {
        const dc = await startSambaDc();
        cleanups.push(() => dc.stop());
        return { ...dc, stop: undefined };
      },
      release: (input) => buildSharedRelease(releases, input),
    },
    cleanups,
  );
  project.provide('sharedServices', shared.url);
  return async () => {
    await Promise.all([cluster?.stop(), ldap.stop(), shared.stop()]);
  };
}
