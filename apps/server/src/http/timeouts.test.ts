import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, buildManagementApp } from '../app.js';
import { selfSignedCertificate } from '../testing/certificates.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

/**
 * DEA_REQUEST_TIMEOUT_SECONDS of these tests. The idle timeout (60 s), Node's own (120 s) and the
 * client's trickle (38 s) are far above it, so a close within a test's deadline is this timeout's:
 * no test bounds the wall clock from above, which a loaded machine may stretch. Each test opens
 * connections of its own to the suite's listeners, so the tests of a suite run at once: they wait
 * on the server's timers side by side (about 2 s each, 19 s one after the other) rather than
 * holding a worker of the run idle.
 */
const REQUEST_TIMEOUT_MS = 1000;

function portOf(app: FastifyInstance): number {
  const address = app.server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/**
 * A slow client: it writes `head` at once, then one byte of `drip` every 100 ms (so the idle
 * timeout never fires), and answers how long the server let the connection live, what it said, and
 * how much of `drip` was still unsent when the server closed it.
 */
async function slowClient(
  open: () => Socket,
  head: string,
  drip: string,
): Promise<{ livedMs: number; answer: string; unsent: number }> {
  const socket = open();
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  socket.on('error', () => undefined);
  const started = performance.now();
  socket.write(head);
  let sent = 0;
  const dripping = setInterval(() => {
    if (sent < drip.length && !socket.destroyed) socket.write(drip[sent++] ?? '');
  }, 100);
  try {
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
  } finally {
    clearInterval(dripping);
  }
  return { livedMs: performance.now() - started, answer, unsent: drip.length - sent };
}

const SLOW_BODY = {
  head: 'POST /login/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n',
  drip: `{"username":"${'a'.repeat(380)}`,
};
const SLOW_HEADERS = { head: 'GET /healthz HTTP/1.1\r\n', drip: `X-Slow: ${'b'.repeat(400)}` };

describe.concurrent('DEA_REQUEST_TIMEOUT_SECONDS holds on every listener', () => {
  const dirs: string[] = [];
  let t: TestApp;
  let plain: FastifyInstance;
  let tls: FastifyInstance;
  let management: FastifyInstance;
  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      DEA_REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_MS / 1000),
      DEA_IDLE_TIMEOUT_SECONDS: '60',
      DEA_MANAGEMENT_PORT: '0',
    });
    plain = await buildApp({ services: t.services });
    await plain.listen({ port: 0, host: '127.0.0.1' });
    const dir = mkdtempSync(join(tmpdir(), 'dea-timeouts-'));
    dirs.push(dir);
    const files = selfSignedCertificate(dir, 'server');
    tls = await buildApp({
      services: t.services,
      tls: { cert: readFileSync(files.cert), key: readFileSync(files.key) },
    });
    await tls.listen({ port: 0, host: '127.0.0.1' });
    management = await buildManagementApp(plain);
    await management.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), tls?.close(), management?.close()]);
    await t?.close();
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  const listeners: [string, () => Socket][] = [
    ['the public port', () => connectTcp(portOf(plain), '127.0.0.1')],
    [
      'the TLS listener',
      () => connectTls({ host: '127.0.0.1', port: portOf(tls), rejectUnauthorized: false }),
    ],
    ['the management port', () => connectTcp(portOf(management), '127.0.0.1')],
  ];

  it('closes a connection to the TLS listener that never begins its handshake within the timeout', async () => {
    const started = performance.now();
    const socket = connectTcp(portOf(tls), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // Closed within the test's deadline, far below the idle timeout and Node's: the request timeout.
    expect(performance.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
  });

  describe.each(listeners)('%s', (_name, open) => {
    it.each([
      ['a body that trickles in', SLOW_BODY],
      ['headers that trickle in', SLOW_HEADERS],
    ])('answers 408 and closes %s within the timeout and one check', async (_what, { head, drip }) => {
      const clients = await Promise.all(Array.from({ length: 5 }, () => slowClient(open, head, drip)));
      for (const { livedMs, answer, unsent } of clients) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(livedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
        // The server closed it while the client was still sending.
        expect(unsent).toBeGreaterThan(0);
      }
    });
  });
});

describe.concurrent('DEA_IDLE_TIMEOUT_SECONDS holds on every listener', () => {
  const IDLE_MS = 1000;
  const dirs: string[] = [];
  let t: TestApp;
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      DEA_IDLE_TIMEOUT_SECONDS: String(IDLE_MS / 1000),
      // Far above the test's deadline (and Node's 120 s): only the idle timeout closes a connection.
      DEA_REQUEST_TIMEOUT_SECONDS: '600',
      DEA_MANAGEMENT_PORT: '0',
    });
    const dir = mkdtempSync(join(tmpdir(), 'dea-timeouts-'));
    dirs.push(dir);
    const files = selfSignedCertificate(dir, 'server');
    const plain = await buildApp({ services: t.services });
    const tls = await buildApp({
      services: t.services,
      tls: { cert: readFileSync(files.cert), key: readFileSync(files.key) },
    });
    const management = await buildManagementApp(plain);
    apps.push(plain, tls, management);
    for (const app of apps) await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await t?.close();
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  const listeners: [string, number, boolean][] = [
    ['the public port', 0, false],
    ['the TLS listener', 1, true],
    ['the management port', 2, false],
  ];
  it.each(listeners)(
    'closes a silent connection and one kept alive after its answer on %s',
    async (_name, index, overTls) => {
      const port = portOf(apps[index]!);
      const open = () =>
        overTls
          ? connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false })
          : connectTcp(port, '127.0.0.1');
      const lived = (socket: Socket, request?: string): Promise<number> => {
        socket.on('error', () => undefined);
        // The answer is read, so that the server's close is seen.
        socket.resume();
        const started = performance.now();
        if (request !== undefined) socket.write(request);
        return new Promise((resolve) => socket.on('close', () => resolve(performance.now() - started)));
      };
      const [silent, keptAlive] = await Promise.all([
        lived(open()),
        lived(open(), 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]);
      for (const livedMs of [silent, keptAlive]) expect(livedMs).toBeGreaterThanOrEqual(IDLE_MS - 50);
    },
  );
});
