import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createLogger } from '../logging.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

const WEB_DIR = fileURLToPath(new URL('../../../web/dist', import.meta.url));

describe('requests that are the client’s fault', () => {
  let t: TestApp;
  let app: TestApp['app'];
  const lines: { level: number; msg: string }[] = [];
  beforeAll(async () => {
    t = await createTestApp('sqlite', { DEA_WEB_DIR: WEB_DIR });
    const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    app = await buildApp({ services: t.services, logger });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  it.each([
    '/dea/..%2f..%2fetc%2fpasswd',
    '/dea/%00',
    '/dea/%',
    '/login/%E0%A4%A',
    '/dea/api/%c0%ae%c0%ae/',
    '/dea/assets/..%5c..%5cpackage.json',
  ])('answers %s with a 4xx envelope, never 500, and logs it below error level', async (url) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.json()).toMatchObject({ error: 2 });
    expect(response.body).not.toContain('root:');
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('logs an upload the client aborts as the client’s doing, not as an error', async () => {
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const before = lines.length;
    // Node's server emits 'request' once it has read the headers: the upload is then under way.
    const arrived = once(app.server, 'request');
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/login/api/session',
      headers: { 'content-type': 'application/json', 'content-length': '1000' },
    });
    request.on('error', () => undefined);
    request.write('{"username":"a');
    await arrived;
    request.destroy();
    // The server notices the reset and writes the request's line.
    await expect.poll(() => lines.length).toBeGreaterThan(before);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});

describe('stalled requests', () => {
  it('closes a connection whose body stops arriving, after DEA_IDLE_TIMEOUT_SECONDS', async () => {
    const t = await createTestApp('sqlite', {
      DEA_IDLE_TIMEOUT_SECONDS: '1',
      DEA_REQUEST_TIMEOUT_SECONDS: '2',
    });
    const app = await buildApp({ services: t.services });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const sockets = Array.from({ length: 20 }, () => {
        const socket = connect(port, '127.0.0.1');
        socket.write(
          'POST /login/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user',
        );
        return new Promise<void>((resolve) =>
          socket.on('close', () => resolve()).on('error', () => undefined),
        );
      });
      // Every socket is closed by the server; without timeouts this never happens and the test times out.
      await Promise.all(sockets);
      const open = await new Promise<number>((resolve, reject) =>
        app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
      expect(open).toBe(0);
    } finally {
      await app.close();
      await t.close();
    }
  }, 15_000);
});
