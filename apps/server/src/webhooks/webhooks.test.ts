import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:https';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { describe, expect } from 'vitest';
import { AuditExport } from '../audit-export/audit-export.js';
import { auditStampKeyOf, sealAuditTrail } from '../domain/audit/audit-trail.js';
import { retentionRulesOf } from '../domain/retention/retention.js';
import { Metrics } from '../observability/metrics.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { CHANNEL_DELIVERY_MODE } from '@dea/contract';
import { API, bodies } from '../testing/api-bodies.js';
import { appTest, storeTest } from '../testing/fixtures.js';
import { createPrivateCa, type PrivateCa } from '../testing/private-ca.js';
import { STORE_KINDS, TEST_STORE_KEYS, type TestStore } from '../testing/stores.js';
import type { TestApp, TestUser } from '../testing/test-app.js';
import { exportDestinationsOf, loadConfig } from '../config.js';
import type { WebhookConfig } from './webhook-settings.js';
import { webhookDestinations } from './webhook-destination.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** The status the receiver answered. */
  status?: number;
}

/**
 * An HTTPS endpoint of a receiving system, with a certificate of a private CA: it answers each
 * message as `answer` says and keeps what it got.
 */
async function receiver(ca: PrivateCa, answer: (index: number, response: ServerResponse) => void) {
  const received: Received[] = [];
  const server = createServer({ key: ca.key, cert: ca.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const message: Received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(message);
      response.on('finish', () => {
        message.status = response.statusCode;
      });
      answer(received.length - 1, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `https://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/hooks/dea`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

// What a test store writes is stamped under these keys' secret.
const KEYS = TEST_STORE_KEYS;
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Checks a message with the Standard Webhooks reference library, as a receiver does. */
function verified(message: Received): { type: string; timestamp: string; data: Record<string, unknown> } {
  const headers = {
    'webhook-id': String(message.headers['webhook-id']),
    'webhook-timestamp': String(message.headers['webhook-timestamp']),
    'webhook-signature': String(message.headers['webhook-signature']),
  };
  return new Webhook(SECRET).verify(message.body, headers) as ReturnType<typeof verified>;
}

/** Waits until `check` holds (the server project's poll deadline is the safety net). */
async function eventually(check: () => boolean): Promise<void> {
  await expect.poll(check, { interval: 25 }).toBe(true);
}

/** The webhook-ids of the messages the receiver took (answered 2xx), in the order it took them. */
function taken(received: readonly Received[]): string[] {
  return received
    .filter((message) => message.status !== undefined && message.status < 300)
    .map((message) => String(message.headers['webhook-id']));
}

/** The sealed entries of one event, in the trail's order, as the webhook-ids they are sent with. */
async function idsOf(store: Store, event: string): Promise<string[]> {
  return (await store.auditTrail.sealedAfter(0, 100_000))
    .filter((entry) => entry.event === event)
    .map((entry) => `msg_${entry.id}`);
}

/** Another instance's store, which stamps what it writes with the keys of the secret it runs with. */
function secondStore(testStore: TestStore, keys = KEYS): Promise<Store> {
  return openStore({
    dataDir: testStore.dataDir,
    auditStampKey: auditStampKeyOf(keys),
    ...(testStore.databaseUrl !== undefined && { databaseUrl: testStore.databaseUrl }),
  });
}

async function issued(t: TestApp): Promise<{ user: TestUser; code: string }> {
  const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
  return { user, code: await t.codeOnScreen(user) };
}

describe('webhook settings', () => {
  appTest('refuse what they cannot use, naming the setting', ({ expect }) => {
    const problems = (settings: Record<string, string>) => {
      try {
        loadConfig(settings);
        return [];
      } catch (error) {
        return (error as { problems: string[] }).problems;
      }
    };
    expect(
      problems({ DEA_WEBHOOKS: '{"code.used":"http://siem.example.com/x"}', DEA_WEBHOOK_SECRET: SECRET }),
    ).toEqual(['DEA_WEBHOOKS: the URL of code.used must be an https:// URL']);
    expect(
      problems({
        DEA_WEBHOOKS: '{"user.created":"https://siem.example.com/x"}',
        DEA_WEBHOOK_SECRET: SECRET,
      })[0],
    ).toMatch(
      /^DEA_WEBHOOKS: "user.created" is not one of code.issued, code.sent, code.used, code.verify_lockout/,
    );
    expect(
      problems({
        DEA_WEBHOOKS: '{"code.used":"https://siem.example.com/x"}',
        DEA_WEBHOOK_SECRET: 'short',
      })[0],
    ).toMatch(/^DEA_WEBHOOK_SECRET: required with DEA_WEBHOOKS/);
    expect(problems({ DEA_WEBHOOKS: '[1]', DEA_WEBHOOK_SECRET: SECRET })).toEqual([
      'DEA_WEBHOOKS: must be a JSON object of event -> https URL',
    ]);
  });
});

describe('the retention purge', () => {
  appTest('keeps what a webhook has not received, as for the audit export', ({ expect }) => {
    const config = loadConfig({
      DEA_WEBHOOKS: JSON.stringify({ 'code.used': 'https://siem.example.com/x' }),
      DEA_WEBHOOK_SECRET: SECRET,
      DEA_AUDIT_FILE: '/var/log/dea/audit.jsonl',
    });
    expect(retentionRulesOf(config, exportDestinationsOf(config)).auditDestinations).toEqual([
      'file',
      'webhook:code.used',
    ]);
  });
});

describe.each(STORE_KINDS)('webhooks on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'a used code and a lockout reach their endpoint signed, never with the code',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(204).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({
          'code.issued': endpoint.url,
          'code.used': endpoint.url,
          'code.verify_lockout': endpoint.url,
        }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
        DEA_VERIFY_MAX_FAILURES: '2',
      });
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'vpn',
        ['verify'],
        t.clock.now(),
      );
      const verify = (userId: string, code: string) =>
        t.call(`${API}/tempPass/verify`, { userId, code }, undefined, { authorization: `Bearer ${key}` });
      const { user, code } = await issued(t);
      expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: true } });
      const other = await issued(t);
      await verify(other.user.id, 'WRONG23456');
      await verify(other.user.id, 'WRONG23457');
      await eventually(() => endpoint.received.length >= 4);

      const messages = endpoint.received.map(verified);
      expect(messages.map((message) => message.type).sort()).toEqual([
        'code.issued',
        'code.issued',
        'code.used',
        'code.verify_lockout',
      ]);
      const used = messages.find((message) => message.type === 'code.used');
      expect(used?.data).toMatchObject({
        userId: user.id,
        username: user.username,
        actor: 'service-key:vpn',
        channel: 'screen',
        codeId: expect.any(String),
      });
      expect(messages.find((message) => message.type === 'code.verify_lockout')?.data).toMatchObject({
        userId: other.user.id,
        failures: 2,
      });
      for (const message of endpoint.received) {
        expect(message.body).not.toContain(code);
        expect(message.body).not.toContain(other.code);
        expect(message.headers['content-type']).toBe('application/json');
      }
      expect(new Set(endpoint.received.map((message) => message.headers['webhook-id'])).size).toBe(4);
    },
  );

  appTest(
    'a code sent to a channel is told without the code or the address',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(204).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.sent': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
      });
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        channels: { email: 'grace.hopper@example.com' },
      });
      const [channel] = await t.services.store.channels.listOfUser(user.id);
      const sent = await t.call(
        `${API}/tempPass/createAndSend`,
        bodies.createAndSend(user.id, 'smtp', channel?.id ?? ''),
        await t.signIn(user),
      );
      expect(sent.json()).toMatchObject({ error: 0 });
      await eventually(() => endpoint.received.length >= 1);
      const [message] = endpoint.received;
      if (message === undefined) throw new Error('nothing received');
      expect(verified(message)).toMatchObject({
        type: 'code.sent',
        data: { userId: user.id, username: user.username },
      });
      expect(message.body).not.toContain('grace.hopper@example.com');
      expect(await t.services.store.outbox.list(1, user.id)).toHaveLength(1);
    },
  );

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
    'gives up a message its endpoint refuses DEA_WEBHOOK_ATTEMPTS times, and refuses an endpoint whose certificate it cannot trust',
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

      // Without the private CA the certificate is not trusted: nothing reaches the endpoint.
      const before = endpoint.received.length;
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
      expect(endpoint.received).toHaveLength(before);
      expect(
        await distrusting.services.metrics.registry.getSingleMetricAsString('dea_webhook_messages_total'),
      ).not.toContain('outcome="failed"');
    },
  );

  appTest(
    'an entry another store instance writes (dea, another server) raises its webhook, its id taken from the entry',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(204).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.used': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
      });
      const user = await t.createUser();
      const other = await secondStore(t.testStore, t.services.keys);
      onTestFinished(() => other.close());
      await other.audit.append(
        {
          event: 'code.used',
          userId: user.id,
          actor: 'service-key:radius',
          details: { codeId: 'code-1', channel: 'screen' },
        },
        t.clock.now(),
      );
      await eventually(() => endpoint.received.length >= 1);
      const [message] = endpoint.received;
      if (message === undefined) throw new Error('nothing received');
      expect(verified(message)).toMatchObject({
        type: 'code.used',
        data: { userId: user.id, username: user.username, actor: 'service-key:radius', codeId: 'code-1' },
      });
      expect(taken(endpoint.received)).toEqual(await idsOf(t.services.store, 'code.used'));
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
      const file = join(mkdtempSync(join(tmpdir(), 'dea-webhooks-')), 'audit.jsonl');
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
