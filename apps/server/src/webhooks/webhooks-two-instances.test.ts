import { readFileSync } from 'node:fs';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { AuditExport } from '../audit-export/audit-export.js';
import { sealAuditTrail } from '../domain/audit/audit-trail.js';
import { Metrics } from '../observability/metrics.js';
import type { Store } from '../store/store.js';
import { storeTest } from '../testing/fixtures.js';
import { createPrivateCa } from '../testing/private-ca.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { WebhookConfig } from './webhook-settings.js';
import { webhookDestinations } from './webhook-destination.js';
import { eventually, KEYS, receiver, SECRET, secondStore, taken, verified } from './webhooks-fixture.js';

const silent = pino({ level: 'silent' });

describe.each(STORE_KINDS)('webhooks of two instances on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'each entry goes once and in order, whichever instance wrote it, after the receiver was down and across the exporting instance stopping; what was there before the webhook is not sent',
    async ({ testStore, onTestFinished }) => {
      const ca = createPrivateCa();
      let up = false;
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(up ? 200 : 503).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const config: WebhookConfig = {
        urls: { 'code.used': endpoint.url },
        secret: Buffer.from(SECRET.slice('whsec_'.length), 'base64'),
        ca: readFileSync(ca.caFile, 'utf8'),
        attempts: 6,
        retryBaseMs: 20,
        timeoutMs: 5000,
      };
      const first: Store = testStore.store;
      const second = await secondStore(testStore);
      // Two of every three entries are of the webhook's event.
      const write = async (store: Store, writer: string, count: number) => {
        for (let index = 0; index < count; index += 1)
          await store.audit.append(
            { event: index % 3 === 2 ? 'system.start' : 'code.used', details: { writer, index } },
            Date.now(),
          );
      };
      await write(first, 'before', 6);
      await sealAuditTrail(first, KEYS, Date.now());
      const exporters = [first, second].map((store, index) => {
        const metrics = new Metrics();
        return new AuditExport(undefined, store, KEYS, metrics, silent, {
          holder: `instance-${index}`,
          now: Date.now,
          pollMs: 20,
          destinations: webhookDestinations(config, store, metrics, silent),
        });
      });
      try {
        for (const exporter of exporters) {
          await exporter.begin();
          exporter.start();
        }
        // Four writers at once, two on each instance.
        await Promise.all([
          write(first, 'a', 30),
          write(first, 'b', 30),
          write(second, 'c', 30),
          write(second, 'd', 30),
        ]);
        await eventually(() => endpoint.received.length >= 1);
        up = true;
        await expect.poll(() => taken(endpoint.received).length, { timeout: 30_000 }).toBe(80);
        // One instance stops; the lease and the stored position carry the rest.
        await exporters[0]?.close(1000);
        await Promise.all([write(first, 'e', 15), write(second, 'f', 15)]);
        await expect.poll(() => taken(endpoint.received).length, { timeout: 30_000 }).toBe(100);
        const expected = (await first.auditTrail.sealedAfter(0, 10_000))
          .filter((entry) => entry.event === 'code.used' && entry.details['writer'] !== 'before')
          .map((entry) => `msg_${entry.id}`);
        expect(expected).toHaveLength(100);
        expect(taken(endpoint.received)).toEqual(expected);
        for (const message of endpoint.received) expect(verified(message).type).toBe('code.used');
      } finally {
        await Promise.all(exporters.map((exporter) => exporter.close(1000)));
        await second.close();
      }
    },
    90_000,
  );
});
