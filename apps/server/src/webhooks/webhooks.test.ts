import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { describe, expect } from 'vitest';
import { createServiceKey } from '../domain/service-keys.js';
import { CHANNEL_DELIVERY_MODE } from '@dea/contract';
import { API, bodies } from '../testing/api-bodies.js';
import { appTest } from '../testing/fixtures.js';
import { createPrivateCa, type PrivateCa } from '../testing/private-ca.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp, TestUser } from '../testing/test-app.js';
import { loadConfig } from '../config.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
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
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(received.length - 1, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `https://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/hooks/dea`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

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
    'gives up after DEA_WEBHOOK_ATTEMPTS, and refuses an endpoint whose certificate it cannot trust',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(500).end());
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
      const distrusted = () =>
        distrusting.services.metrics.registry.getSingleMetricAsString('dea_webhook_messages_total');
      await expect.poll(distrusted, { interval: 25 }).toContain(failed);
      expect(endpoint.received).toHaveLength(before);
    },
  );
});
