import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import { deriveKeys } from '../crypto/secret-keys.js';
import { auditStampKeyOf } from '../domain/audit/audit-trail.js';
import { EMBEDDED_STORE_FILE, openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { leaseTestDatabase } from './store-templates.js';

/**
 * The test file whose module graph evaluated this module, which nearly every server test file
 * imports: the file itself, never one before it in its worker (testing/own-module-graph.ts).
 */
export const EVALUATED_FOR_FILE = expect.getState().testPath;

export type StoreKind = Store['kind'];
const ALL_STORE_KINDS: StoreKind[] = ['sqlite', 'postgres'];

/**
 * The stores the store suites run on: both, unless `DEA_TEST_STORES` names some (comma-separated,
 * `sqlite` or `postgres`) for a faster local loop; `npm test` leaves it unset and runs both.
 */
export function storeKindsOf(setting: string | undefined): StoreKind[] {
  if (setting === undefined || setting.trim() === '') return ALL_STORE_KINDS;
  const named = setting.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => !ALL_STORE_KINDS.includes(name as StoreKind));
  if (unknown.length > 0 || named.length === 0)
    throw new Error(
      `DEA_TEST_STORES="${setting}": ${unknown.map((name) => `"${name}"`).join(', ')} is not a store; name sqlite, postgres or both (comma-separated), or leave it unset for both`,
    );
  return ALL_STORE_KINDS.filter((kind) => named.includes(kind));
}

export const STORE_KINDS: StoreKind[] = storeKindsOf(process.env.DEA_TEST_STORES);

/**
 * The store a door's tests run on (HTTP routes, the command line, the directory's sync and sign-in,
 * RADIUS, a file's import): the first of STORE_KINDS, the embedded store unless `DEA_TEST_STORES`
 * names PostgreSQL alone. A door adds status, envelope, schema, headers, cookies, arguments and its
 * mapping of the domain's errors, none of which changes with the store; the rules and the store
 * itself are tested on both, where they live (the domain's and the store's suites;
 * docs/decisions/0052). A door's test about the store (its round trips on PostgreSQL, two instances
 * of one database, a limit the store holds under concurrency, SQL written per database) keeps
 * STORE_KINDS.
 */
export const DOOR_STORE_KINDS: StoreKind[] = STORE_KINDS.slice(0, 1);

/**
 * The secret whose audit-entry key stamps what a test store writes (ADR 0032; the CLI's of
 * testing/cli.ts, CLI_SECRET): a test that seals
 * or verifies the trail of a test store does so with these keys.
 */
export const TEST_STORE_KEYS = deriveKeys(Buffer.alloc(32, 9));
/** TEST_STORE_KEYS' audit-entry key: what a test store, and another instance opened on its database, stamps with. */
export const TEST_AUDIT_STAMP_KEY = auditStampKeyOf(TEST_STORE_KEYS);

export interface TestStore {
  store: Store;
  /** What opens this same store again (a second instance). */
  databaseUrl: string | undefined;
  dataDir: string;
  dispose(): Promise<void>;
}

/**
 * A fresh, migrated store of that kind, isolated from every other test: a copy of the run's
 * migrated store (testing/store-templates.ts), which opens with nothing left to migrate; on
 * PostgreSQL, one another test released and had emptied when there is one (`leaseTestDatabase`).
 */
export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-store-'));
  const templates = inject('storeTemplates');
  if (kind === 'sqlite') {
    copyFileSync(templates.sqliteFile, join(dataDir, EMBEDDED_STORE_FILE));
    const store = await openStore({ dataDir, auditStampKey: TEST_AUDIT_STAMP_KEY });
    return {
      store,
      databaseUrl: undefined,
      dataDir,
      async dispose() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const database = await leaseTestDatabase(inject('postgresUrl'), templates);
  const store = await openStore({ dataDir, databaseUrl: database.url, auditStampKey: TEST_AUDIT_STAMP_KEY });
  return {
    store,
    databaseUrl: database.url,
    dataDir,
    async dispose() {
      await store.close();
      await database.release();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
