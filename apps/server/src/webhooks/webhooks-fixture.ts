import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { auditStampKeyOf } from '../domain/audit/audit-trail.js';
import type { PrivateCa } from '../testing/private-ca.js';
import { TEST_STORE_KEYS, type TestStore } from '../testing/stores.js';
import type { TestApp, TestUser } from '../testing/test-app.js';

/** What the webhook tests share: a receiving endpoint, the secret, and what a receiver checks. */

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** The status the receiver answered. */
  status?: number;
}

/**
 * An HTTPS endpoint of a receiving system, with a certificate of a private CA: it answers each
 * message as `answer` says and keeps what it got.
 */
export async function receiver(ca: PrivateCa, answer: (index: number, response: ServerResponse) => void) {
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
export const KEYS = TEST_STORE_KEYS;
export const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Checks a message with the Standard Webhooks reference library, as a receiver does. */
export function verified(message: Received): {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
} {
  const headers = {
    'webhook-id': String(message.headers['webhook-id']),
    'webhook-timestamp': String(message.headers['webhook-timestamp']),
    'webhook-signature': String(message.headers['webhook-signature']),
  };
  return new Webhook(SECRET).verify(message.body, headers) as ReturnType<typeof verified>;
}

/** Waits until `check` holds (the server project's poll deadline is the safety net). */
export async function eventually(check: () => boolean): Promise<void> {
  await expect.poll(check, { interval: 25 }).toBe(true);
}

/** The webhook-ids of the messages the receiver took (answered 2xx), in the order it took them. */
export function taken(received: readonly Received[]): string[] {
  return received
    .filter((message) => message.status !== undefined && message.status < 300)
    .map((message) => String(message.headers['webhook-id']));
}

/** The sealed entries of one event, in the trail's order, as the webhook-ids they are sent with. */
export async function idsOf(store: Store, event: string): Promise<string[]> {
  return (await store.auditTrail.sealedAfter(0, 100_000))
    .filter((entry) => entry.event === event)
    .map((entry) => `msg_${entry.id}`);
}

/** Another instance's store, which stamps what it writes with the keys of the secret it runs with. */
export function secondStore(testStore: TestStore, keys = KEYS): Promise<Store> {
  return openStore({
    dataDir: testStore.dataDir,
    auditStampKey: auditStampKeyOf(keys),
    ...(testStore.databaseUrl !== undefined && { databaseUrl: testStore.databaseUrl }),
  });
}

export async function issued(t: TestApp): Promise<{ user: TestUser; code: string }> {
  const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
  return { user, code: await t.codeOnScreen(user) };
}
