import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XSRF_COOKIE_NAME, XSRF_HEADER_NAME, splitChannelValue, usernameOrThrow } from '@dea/contract';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from './app.js';
import { startServices } from './bootstrap.js';
import { newId } from './crypto/ids.js';
import { hashPassword } from './crypto/password-hash.js';
import { openOutboxMessage } from './delivery/outbox-provider.js';
import { createServiceKey } from './domain/codes/service-keys.js';
import { SESSION_COOKIE } from './http/cookies.js';
import type { Services } from './http/types.js';
import { REQUEST_LINES_BUFFER_BYTES, createLogger, linesTo, readableLine } from './logging.js';
import { API, bodies } from './testing/api-bodies.js';
import { TEST_PASSWORD_HASH_COST, testConfig } from './testing/test-app.js';

const PASSWORD = 'Tr0ub4dor&3-secret';
const ADDRESS = '+49 170 5550112';

/** A real run, logging at the most verbose level the product has, into memory instead of stdout. */
describe('log lines', () => {
  let dataDir: string;
  let services: Services;
  let app: FastifyInstance;
  const lines: string[] = [];
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dea-logging-'));
    ({ services } = await startServices(testConfig({ DEA_LOG_LEVEL: 'trace' }, dataDir)));
    const logger = createLogger(services.config.logLevel, { write: (line: string) => void lines.push(line) });
    app = await buildApp({ services, logger });
  });
  afterAll(async () => {
    await app.close();
    await services.store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function createUser(
    username: string,
    options: Record<string, unknown>,
    channels = false,
  ): Promise<string> {
    const now = Date.now();
    const id = newId(now);
    await services.store.users.create({
      id,
      username: usernameOrThrow(username),
      passwordHash: await hashPassword(PASSWORD, TEST_PASSWORD_HASH_COST),
      fullName: username,
      locale: 'en',
      createdAt: now,
    });
    const groupId = newId(now);
    await services.store.groups.create({ id: groupId, name: `group-${username}`, priority: 0 });
    await services.store.groups.setPolicy(groupId, 'Self Service', options);
    await services.store.groups.addMember(groupId, id);
    if (channels)
      await services.store.channels.set({
        id: newId(now),
        userId: id,
        key: 'mobile',
        address: ADDRESS,
        createdAt: now,
      });
    return id;
  }

  async function signIn(
    username: string,
  ): Promise<{ headers: Record<string, string>; sessionId: string; token: string }> {
    const response = await app.inject({
      method: 'POST',
      url: '/login/api/session',
      payload: { username, password: PASSWORD },
    });
    expect(response.json()).toMatchObject({ error: 0 });
    const sessionId = response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value ?? '';
    const token = response.cookies.find((cookie) => cookie.name === XSRF_COOKIE_NAME)?.value ?? '';
    return {
      sessionId,
      token,
      headers: {
        cookie: `${SESSION_COOKIE}=${sessionId}; ${XSRF_COOKIE_NAME}=${token}`,
        [XSRF_HEADER_NAME]: token,
      },
    };
  }
  const post = (url: string, payload: unknown, headers: Record<string, string>) =>
    app.inject({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });

  it('hold no code, password, session id, token, service key or address across a whole run', async () => {
    const screenId = await createUser('log-screen', { enableECode: true, emergencyCodeDelivery: 'Display' });
    const channelId = await createUser(
      'log-channel',
      { enableECode: true, emergencyCodeDelivery: 'Channel' },
      true,
    );

    const wrong = await app.inject({
      method: 'POST',
      url: '/login/api/session',
      payload: { username: 'log-screen', password: `${PASSWORD}x` },
    });
    expect(wrong.json()).toMatchObject({ error: 3 });
    await app.inject({
      method: 'POST',
      url: '/login/api/session',
      payload: { username: 'log-screen', password: PASSWORD, extra: PASSWORD },
    });

    const screen = await signIn('log-screen');
    const channel = await signIn('log-channel');
    expect((await post(`${API}/userinfo`, {}, screen.headers)).statusCode).toBe(200);
    const created = await post(`${API}/tempPass/create`, bodies.create(screenId), screen.headers);
    const code = created.json<{ result: { rows: { password: string }[] } }>().result.rows[0]?.password ?? '';
    expect(code).toMatch(/^[2-9A-Z]{10}$/);

    const map = (
      await post(`${API}/user/queryAvailableChannels`, bodies.channels(channelId), channel.headers)
    ).json<{
      result: { mobile: string };
    }>().result;
    const sent = await post(
      `${API}/tempPass/createAndSend`,
      bodies.createAndSend(channelId, 'sms', splitChannelValue(map.mobile).reference),
      channel.headers,
    );
    expect(sent.json()).toMatchObject({ error: 0 });
    const [message] = await services.store.outbox.list(1);
    const sentCode =
      /is ([2-9A-Z]{10})\./.exec(message ? openOutboxMessage([services.keys.seal], message).text : '')?.[1] ??
      '';
    expect(sentCode).toHaveLength(10);

    const { key } = await createServiceKey(
      services.store,
      services.keys.serviceKey,
      'log-test',
      ['verify'],
      Date.now(),
    );
    const verifyHeaders = { authorization: `Bearer ${key}` };
    expect(
      (await post(`${API}/tempPass/verify`, { userId: screenId, code }, verifyHeaders)).json(),
    ).toMatchObject({ result: { valid: true } });
    expect(
      (await post(`${API}/tempPass/verify`, { userId: channelId, code: sentCode }, verifyHeaders)).json(),
    ).toMatchObject({ result: { valid: true } });
    await post(`${API}/tempPass/verify`, { userId: screenId, code }, { authorization: `Bearer ${key}x` });
    // A refused call whose body holds a code.
    await post(`${API}/tempPass/verify`, { userId: screenId, code, extra: code }, verifyHeaders);

    const logout = await app.inject({
      method: 'GET',
      url: '/dea/logout',
      headers: { cookie: screen.headers.cookie ?? '', 'sec-fetch-site': 'same-origin' },
    });
    expect(logout.statusCode).toBe(302);
    Object.assign(secrets, {
      code,
      sentCode,
      password: PASSWORD,
      sessionId: screen.sessionId,
      channelSessionId: channel.sessionId,
      token: screen.token,
      channelToken: channel.token,
      serviceKey: key,
      serviceKeySecret: key.split('.')[1] ?? key,
      address: ADDRESS,
      addressDigits: ADDRESS.replace(/\D/g, ''),
    });

    const log = lines.join('');
    // The run was logged: every call shows up, so the checks below look at real lines.
    for (const path of [
      '/login/api/session',
      '/dea/api/tempPass/create',
      '/dea/api/tempPass/createAndSend',
      '/dea/api/tempPass/verify',
      '/dea/logout',
    ]) {
      expect(log).toContain(path);
    }
    expect(log).toContain('"statusCode":200');
    expect(log).toContain('"statusCode":400');
    expect(log).toContain('"statusCode":401');
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    // One line per request, with its request id, written when it is answered.
    const requestLines = lines.map((line) => JSON.parse(line) as { msg: string; reqId?: string });
    const completed = requestLines.filter((line) => line.msg === 'request completed');
    expect(requestLines.filter((line) => line.msg === 'incoming request')).toEqual([]);
    expect(new Set(completed.map((line) => line.reqId)).size).toBe(completed.length);
    expect(log).toContain('"path":"/dea/api/tempPass/create"');
    for (const [what, secret] of Object.entries(secrets)) {
      expect(secret.length, what).toBeGreaterThan(3);
      expect(log, what).not.toContain(secret);
    }
    expect(log.toLowerCase()).not.toContain(code.toLowerCase());
  });
});

/** Lines to a real file: what is in it is what a log collector would have read by then. */
describe('lines to a file descriptor (DEA_REQUEST_LOG_WAIT_MS)', () => {
  let folder: string;
  let ended: (() => void)[] = [];
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'dea-lines-'));
  });
  afterEach(() => {
    for (const end of ended) end();
    ended = [];
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /**
   * Lines to a new file: `written` is what the file holds now, `handed` what the lines gave pino's
   * destination for it so far. The destination writes what it is handed asynchronously, but it is
   * handed a line synchronously or not at all: nothing handed is nothing that can arrive later.
   */
  function opened(waitMs: number): {
    streams: ReturnType<typeof linesTo>;
    written: () => string;
    handed: () => unknown[];
  } {
    const file = join(folder, `${waitMs}-${ended.length}.log`);
    // The destination the lines make, which they hand each line they let go.
    const made = vi.spyOn(pino, 'destination');
    let streams: ReturnType<typeof linesTo>;
    let destination: ReturnType<typeof pino.destination> | undefined;
    try {
      streams = linesTo(openSync(file, 'w'), waitMs);
      destination = made.mock.results[0]?.value as typeof destination;
    } finally {
      made.mockRestore();
    }
    if (destination === undefined) throw new Error('the lines made no destination');
    const writes = vi.spyOn(destination, 'write');
    ended.push(() => streams.end());
    return {
      streams,
      written: () => readFileSync(file, 'utf8'),
      handed: () => writes.mock.calls.map(([data]) => data),
    };
  }

  it('writes a request line at once when asked to wait 0 ms', async () => {
    const { streams, written } = opened(0);
    streams.requestLines.write('{"msg":"request completed"}\n');
    await expect.poll(written).toBe('{"msg":"request completed"}\n');
  });

  it('keeps request lines until another line comes, then writes them first, in order', async () => {
    const { streams, written, handed } = opened(60_000);
    streams.requestLines.write('{"n":1}\n');
    streams.requestLines.write('{"n":2}\n');
    expect(handed()).toEqual([]);
    streams.lines.write('{"n":3,"level":40}\n');
    expect(handed()).toEqual(['{"n":1}\n{"n":2}\n{"n":3,"level":40}\n']);
    await expect.poll(written).toBe('{"n":1}\n{"n":2}\n{"n":3,"level":40}\n');
  });

  it(`writes request lines once ${REQUEST_LINES_BUFFER_BYTES} bytes of them wait`, async () => {
    const { streams, written, handed } = opened(60_000);
    const line = `{"msg":"request completed","path":"${'x'.repeat(90)}"}\n`;
    const fits = Math.ceil(REQUEST_LINES_BUFFER_BYTES / line.length);
    for (let n = 1; n < fits; n += 1) streams.requestLines.write(line);
    expect(handed()).toEqual([]);
    streams.requestLines.write(line);
    expect(handed()).toEqual([line.repeat(fits)]);
    await expect.poll(written).toBe(line.repeat(fits));
  });

  it('writes waiting request lines when the wait has passed', async () => {
    const { streams, written } = opened(50);
    streams.requestLines.write('{"n":1}\n');
    await expect.poll(written).toBe('{"n":1}\n');
  });

  it('loads the logger through them: a request line waits, the next other line takes it along', async () => {
    const { streams, written, handed } = opened(60_000);
    const logger = pino({ base: null, timestamp: false }, streams.lines);
    const requestLines = pino({ base: null, timestamp: false }, streams.requestLines);
    requestLines.info({ path: '/dea/api/tempPass/verify' }, 'request completed');
    expect(handed()).toEqual([]);
    logger.warn('something to see now');
    expect(handed()).toHaveLength(1);
    const messages = () =>
      written()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
    await expect.poll(messages).toEqual(['request completed', 'something to see now']);
  });
});

describe('log lines at a terminal', () => {
  it('are written for a person: time of day, level, message, then the other fields', () => {
    expect(
      readableLine(
        '{"level":40,"time":"2026-12-06T21:03:04.567Z","service":"dea","accounts":["demo"],"n":2,"msg":"demo accounts exist"}\n',
      ),
    ).toBe('21:03:04.567 WARN  demo accounts exist  accounts=["demo"] n=2\n');
    expect(readableLine('{"level":30,"time":"2026-12-06T21:03:04.567Z","msg":"closing"}')).toBe(
      '21:03:04.567 info  closing\n',
    );
    expect(readableLine('not json')).toBe('not json\n');
  });
});
