import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { createTestDatabase } from './postgres-cluster.js';

export type StoreKind = Store['kind'];
export const STORE_KINDS: StoreKind[] = ['sqlite', 'postgres'];

export interface TestStore {
  store: Store;
  /** What opens this same store again (a second instance). */
  databaseUrl: string | undefined;
  dataDir: string;
  dispose(): Promise<void>;
}

/** A fresh, migrated store of that kind, isolated from every other test. */
export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-store-'));
  if (kind === 'sqlite') {
    const store = await openStore({ dataDir });
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
  const database = await createTestDatabase(inject('postgresUrl'));
  const store = await openStore({ dataDir, databaseUrl: database.url });
  return {
    store,
    databaseUrl: database.url,
    dataDir,
    async dispose() {
      await store.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
