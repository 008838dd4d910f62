import type { TestProject } from 'vitest/node';
import { startLdapServer, type LdapServer } from './ldap-server.js';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** The run's OpenLDAP server; each test builds its own subtree (testing/ldap-tree.ts). */
    ldap: Omit<LdapServer, 'stop'>;
  }
}

/**
 * One PostgreSQL server (or TEST_DATABASE_URL) and one OpenLDAP server for the whole run; each
 * test file makes its own database, each directory test its own subtree.
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
  return async () => {
    await Promise.all([cluster?.stop(), ldap.stop()]);
  };
}
