import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { auditStampKeyOf, verifyAuditTrail } from '../domain/audit/audit-trail.js';
import { Metrics } from '../observability/metrics.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { storeTest } from '../testing/fixtures.js';
import { STORE_KINDS, TEST_STORE_KEYS } from '../testing/stores.js';
import { AuditExport } from './audit-export.js';
import type { AuditExportConfig } from './audit-export-settings.js';
import { testFolder } from '../testing/test-folder.js';

// What a test store writes is stamped under these keys' secret.
const KEYS = TEST_STORE_KEYS;
const silent = pino({ level: 'silent' });

function fileConfig(file: string): AuditExportConfig {
  return { syslog: undefined, https: undefined, file, buffer: 50, timeoutMs: 1000 };
}

function exportedLines(
  file: string,
): { id: string; seq: number; details: { writer: string; index: number } }[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (line) => JSON.parse(line) as { id: string; seq: number; details: { writer: string; index: number } },
      );
  } catch {
    return [];
  }
}

describe.each(STORE_KINDS)('the audit export of two instances on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'each entry written by either instance arrives once and in order, across an instance stopping, and after the destination was down',
    async ({ testStore }) => {
      const folder = testFolder('audit-export');
      // The destination is down at first: its folder does not exist yet.
      const file = join(folder, 'later', 'audit.jsonl');
      const first: Store = testStore.store;
      const second = await openStore({
        dataDir: testStore.dataDir,
        auditStampKey: auditStampKeyOf(KEYS),
        ...(testStore.databaseUrl !== undefined && { databaseUrl: testStore.databaseUrl }),
      });
      const metrics = [new Metrics(), new Metrics()];
      const exporters = [first, second].map(
        (store, index) =>
          new AuditExport(fileConfig(file), store, KEYS, metrics[index] ?? new Metrics(), silent, {
            holder: `instance-${index}`,
            now: Date.now,
            pollMs: 20,
          }),
      );
      try {
        for (const exporter of exporters) exporter.start();
        const write = (store: Store, writer: string, count: number) =>
          (async () => {
            for (let index = 0; index < count; index += 1)
              await store.audit.append({ event: 'system.start', details: { writer, index } }, Date.now());
          })();
        // Four writers at once, two on each instance.
        await Promise.all([
          write(first, 'a', 30),
          write(first, 'b', 30),
          write(second, 'c', 30),
          write(second, 'd', 30),
        ]);
        const failures = async () =>
          (
            await Promise.all(
              metrics.map((m) => m.registry.getSingleMetricAsString('dea_audit_export_failures_total')),
            )
          )
            .join('\n')
            .includes('destination="file"} ');
        await expect.poll(failures, { timeout: 10_000 }).toBe(true);
        expect(exportedLines(file)).toEqual([]);
        mkdirSync(join(folder, 'later'));
        await expect.poll(() => exportedLines(file).length, { timeout: 40_000 }).toBe(120);
        // The instance that holds the lease stops; the other goes on from the stored position.
        await exporters[0]?.close(1000);
        await Promise.all([write(first, 'e', 20), write(second, 'f', 20)]);
        await expect.poll(() => exportedLines(file).length, { timeout: 20_000 }).toBe(160);
        const lines = exportedLines(file);
        expect(lines.map((line) => line.seq)).toEqual(Array.from({ length: 160 }, (_, index) => index + 1));
        expect(new Set(lines.map((line) => line.id)).size).toBe(160);
        for (const writer of ['a', 'b', 'c', 'd', 'e', 'f']) {
          const indexes = lines
            .filter((line) => line.details.writer === writer)
            .map((line) => line.details.index);
          expect(indexes).toEqual([...indexes].sort((x, y) => x - y));
        }
        expect(await verifyAuditTrail(first, KEYS)).toMatchObject({ checked: 160, broken: undefined });
      } finally {
        await Promise.all(exporters.map((exporter) => exporter.close(1000)));
        await second.close();
      }
    },
    90_000,
  );
});
