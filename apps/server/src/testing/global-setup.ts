import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startLdapServer, type LdapServerAddress } from './ldap-server.js';
import { startPostgresCluster } from './postgres-cluster.js';
import { buildSharedRelease, makeReleaseFolders } from './release.js';
import { startSambaDc } from './samba-dc.js';
import { startSharedServices } from './shared-services.js';
import { makeStoreTemplates, type StoreTemplates } from './store-templates.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** The run's OpenLDAP server; each test builds its own subtree (testing/ldap-tree.ts). */
    ldap: LdapServerAddress;
    /** Where a file asks for what is made once per run, when first needed (testing/shared-services.ts). */
    sharedServices: string;
    /** The migrated stores a test's fresh store is copied from (testing/store-templates.ts). */
    storeTemplates: StoreTemplates;
  }
}

/**
 * One PostgreSQL server (or TEST_DATABASE_URL) and one OpenLDAP server for the whole run; each
 * test makes its own database (a copy of the run's migrated one, or one another test emptied:
 * testing/store-templates.ts),
 * each directory test its own subtree. The Samba domain
 * controller and the release artifacts are made once per run as well, the first time a file asks
 * (testing/shared-services.ts): a run without the files that need them does not make them.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TEST_DATABASE_URL;
  const [cluster, ldap] = await Promise.all([given ? undefined : startPostgresCluster(), startLdapServer()]);
  const postgresUrl = given ?? cluster?.url ?? '';
  project.provide('postgresUrl', postgresUrl);
  const templates = await makeStoreTemplates(postgresUrl);
  project.provide('storeTemplates', {
    sqliteFile: templates.sqliteFile,
    postgresDatabase: templates.postgresDatabase,
    postgresSpares: templates.postgresSpares,
    postgresSchema: templates.postgresSchema,
  });
  project.provide('ldap', {
    url: ldap.url,
    ldapsUrl: ldap.ldapsUrl,
    baseDn: ldap.baseDn,
    adminDn: ldap.adminDn,
    adminPassword: ldap.adminPassword,
    caFile: ldap.caFile,
  });
  const cleanups: (() => Promise<void>)[] = [];
  const releases = makeReleaseFolders();
  cleanups.push(async () => {
    for (const folder of new Set([releases.disk, releases.memory]))
      rmSync(folder, { recursive: true, force: true });
  });
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
    await templates.drop();
    await Promise.all([cluster?.stop(), ldap.stop(), shared.stop()]);
  };
}
