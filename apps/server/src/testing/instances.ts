import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../app.js';
import { startServices } from '../bootstrap.js';
import type { Services } from '../http/types.js';
import { createTestDatabase } from './postgres-cluster.js';
import { testConfig } from './test-app.js';

export interface Instance {
  app: FastifyInstance;
  services: Services;
  /** http://127.0.0.1:<port> */
  base: string;
  dataDir: string;
}

export interface Instances {
  a: Instance;
  b: Instance;
  close(): Promise<void>;
}

export async function startInstance(
  databaseUrl: string,
  settings: Record<string, string>,
): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-instance-'));
  const { services } = await startServices(testConfig(settings, dataDir, databaseUrl));
  const app = await buildApp({ services });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { app, services, base: `http://127.0.0.1:${port}`, dataDir };
}

/**
 * Two server instances as two processes behind a load balancer would be: one fresh PostgreSQL
 * database, one secret, each listening on its own port and called over real HTTP.
 */
export async function startTwoInstances(settings: Record<string, string> = {}): Promise<Instances> {
  const database = await createTestDatabase(inject('postgresUrl'));
  const a = await startInstance(database.url, settings);
  const b = await startInstance(database.url, settings);
  return {
    a,
    b,
    async close() {
      for (const instance of [a, b]) {
        await instance.app.close();
        await instance.services.store.close();
        rmSync(instance.dataDir, { recursive: true, force: true });
      }
      await database.drop();
    },
  };
}
