import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../app.js';
import { startServices } from '../bootstrap.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../testing/postgres-cluster.js';
import { testConfig } from '../testing/test-app.js';
import { API } from '../testing/api-bodies.js';

/** A TCP relay in front of PostgreSQL that can be cut and restored: the database "goes away". */
class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: URL) {}

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(Number(this.target.port), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('while the database is unreachable', () => {
  let relay: Relay;
  let database: { url: string; drop(): Promise<void> };
  let services: Awaited<ReturnType<typeof startServices>>['services'];
  let app: Awaited<ReturnType<typeof buildApp>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-unavailable-'));

  beforeAll(async () => {
    database = await createTestDatabase(inject('postgresUrl'));
    relay = new Relay(new URL(database.url));
    await relay.open();
    const viaRelay = new URL(database.url);
    viaRelay.port = String(relay.port);
    ({ services } = await startServices(testConfig({}, dataDir, viaRelay.toString())));
    app = await buildApp({ services });
  });
  afterAll(async () => {
    await relay.cut();
    await app.close();
    await services.store.close().catch(() => undefined);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 with a translated "temporarily unavailable" and Retry-After, serves the texts, and recovers without a restart', async () => {
    const signIn = () =>
      app.inject({
        method: 'POST',
        url: '/login/api/session',
        payload: { username: 'someone', password: 'x' },
        headers: { 'accept-language': 'de' },
      });
    expect((await signIn()).json()).toMatchObject({ error: 3 });

    await relay.cut();
    const refused = await signIn();
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toEqual({
      error: 1,
      message:
        'Der Dienst ist vorübergehend nicht verfügbar. Bitte versuchen Sie es in einigen Minuten erneut.',
      result: { retryAfterSeconds: 5 },
      requestId: refused.headers['x-request-id'],
    });
    // The login page can still show itself in the visitor's language.
    const languages = await app.inject({ method: 'GET', url: `${API}/resourceFile/getLanguageList` });
    expect(languages.json<{ result: unknown[] }>().result).toHaveLength(11);
    const texts = await app.inject({ method: 'GET', url: `${API}/message?lang=de` });
    expect(texts.json<Record<string, string>>()['login.submit']).toBe('Anmelden');
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);

    await relay.open();
    expect((await signIn()).json()).toMatchObject({ error: 3 });
  });
});
