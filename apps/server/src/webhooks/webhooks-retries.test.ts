import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { createPrivateCa } from '../testing/private-ca.js';
import { STORE_KINDS } from '../testing/stores.js';
import { eventually, idsOf, issued, receiver, SECRET, taken, verified } from './webhooks-fixture.js';
import { testFolder } from '../testing/test-folder.js';

describe.each(STORE_KINDS)('webhook retries on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'retries a failing endpoint with the same id, each attempt signed, never delaying the request',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      // The first attempt hangs until the user's request has its answer, then fails; so does the
      // second; the third is taken.
      const endpoint = await receiver(ca, (index, response) => {
        if (index === 0) void held.then(() => response.writeHead(503).end());
        else if (index === 1) response.writeHead(500, { 'retry-after': '0' }).end();
        else response.writeHead(200).end('ok');
      });
      onTestFinished(async () => {
        release();
        await endpoint.close();
        ca.dispose();
      });
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.issued': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
        DEA_WEBHOOK_RETRY_BASE_MS: '20',
      });
      const { code } = await issued(t);
      expect(code).not.toBe('');
      await eventually(() => endpoint.received.length >= 1);
      expect(endpoint.received).toHaveLength(1);
      release();
      await eventually(() => endpoint.received.length >= 3);
      expect(endpoint.received).toHaveLength(3);
      const ids = endpoint.received.map((message) => message.headers['webhook-id']);
      expect(new Set(ids).size).toBe(1);
      for (const message of endpoint.received) expect(verified(message).type).toBe('code.issued');
      // The endpoint has the third message before the sender has its answer: wait for the count.
      const delivered = 'dea_webhook_messages_total{event="code.issued",outcome="delivered"} 1';
      const metric = () => t.services.metrics.registry.getSingleMetricAsString('dea_webhook_messages_total');
      await expect.poll(metric, { interval: 25 }).toContain(delivered);
    },
  );

  appTest(
    'gives up a message its endpoint refuses DEA_WEBHOOK_ATTEMPTS times',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(400).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const trusting = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.issued': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
        DEA_WEBHOOK_ATTEMPTS: '3',
        DEA_WEBHOOK_RETRY_BASE_MS: '10',
      });
      await issued(trusting);
      const failed = 'dea_webhook_messages_total{event="code.issued",outcome="failed"} 1';
      const metric = () =>
        trusting.services.metrics.registry.getSingleMetricAsString('dea_webhook_messages_total');
      await expect.poll(metric, { interval: 25 }).toContain(failed);
      expect(endpoint.received).toHaveLength(3);
    },
  );

  appTest(
    'sends nothing to an endpoint whose certificate it cannot trust, and keeps the message for a later attempt',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(400).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      // Without the private CA the certificate is not trusted: nothing reaches the endpoint.
      const distrusting = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.issued': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_ATTEMPTS: '1',
      });
      await issued(distrusting);
      // An endpoint that cannot be reached is retried (the message waits in the store), never given up.
      const distrusted = () =>
        distrusting.services.metrics.registry.getSingleMetricAsString('dea_audit_export_failures_total');
      await expect.poll(distrusted, { interval: 25 }).toContain('destination="webhook:code.issued"} ');
      expect(endpoint.received).toHaveLength(0);
      expect(
        await distrusting.services.metrics.registry.getSingleMetricAsString('dea_webhook_messages_total'),
      ).not.toContain('outcome="failed"');
    },
  );

  appTest(
    'an endpoint that does not answer delays no other destination of the audit trail',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const endpoint = await receiver(ca, (_index, response) => {
        void held.then(() => response.writeHead(204).end());
      });
      onTestFinished(async () => {
        release();
        await endpoint.close();
        ca.dispose();
      });
      const file = join(testFolder('webhooks', onTestFinished), 'audit.jsonl');
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.issued': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
        DEA_WEBHOOK_TIMEOUT_SECONDS: '60',
        DEA_AUDIT_FILE: file,
      });
      await issued(t);
      await eventually(() => endpoint.received.length >= 1);
      // The webhook's message hangs; what is written meanwhile reaches the file all the same.
      const later = await t.createUser();
      await t.services.store.audit.append({ event: 'user.created', userId: later.id }, t.clock.now());
      const inFile = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
      await expect.poll(inFile, { interval: 25 }).toContain(`"userId":"${later.id}"`);
      expect(taken(endpoint.received)).toEqual([]);
      release();
      await eventually(() => taken(endpoint.received).length >= 1);
    },
  );

  appTest(
    'a receiver that is down at first gets every message once it is back, each once and in order',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      let up = false;
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(up ? 204 : 503).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      // One attempt per refused message: an endpoint that is away is not a refusal, it is waited for.
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.issued': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
        DEA_WEBHOOK_ATTEMPTS: '1',
        DEA_WEBHOOK_RETRY_BASE_MS: '20',
      });
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      for (let index = 0; index < 5; index += 1) await t.codeOnScreen(user);
      await eventually(() => endpoint.received.length >= 2);
      expect(taken(endpoint.received)).toEqual([]);
      up = true;
      await eventually(() => taken(endpoint.received).length >= 5);
      expect(taken(endpoint.received)).toEqual(await idsOf(t.services.store, 'code.issued'));
      for (const message of endpoint.received) expect(verified(message).type).toBe('code.issued');
    },
  );
});
