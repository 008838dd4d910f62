import { request } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { API } from '../testing/api-bodies.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { createTestApp, type TestApp, type TestUser } from '../testing/test-app.js';

const WINDOW_SECONDS = 60;

/**
 * A verification retried with the same Idempotency-Key (tempPass/verify, /validate/check): the
 * first answer again, not a second use of the code (domain/codes/retried-requests.ts), over real HTTP.
 */
describe.each(DOOR_STORE_KINDS)('verifications retried with an Idempotency-Key on %s', (kind) => {
  let t: TestApp;
  let base: string;
  let key: string;
  let otherKey: string;
  let next = 0;
  beforeAll(async () => {
    t = await createTestApp(kind, { DEA_VERIFY_IDEMPOTENCY_SECONDS: String(WINDOW_SECONDS) });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const issue = (name: string) =>
      createServiceKey(t.services.store, t.services.keys.serviceKey, name, ['verify'], t.clock.now());
    ({ key } = await issue('vpn'));
    ({ key: otherKey } = await issue('wifi'));
  });
  afterAll(() => t.close());

  const idempotencyKey = () => `"retry-${kind}-${(next += 1)}"`;
  async function issued(): Promise<{ user: TestUser; code: string }> {
    const user = await t.createUser();
    return { user, code: await t.codeOnScreen(user) };
  }
  const events = async (userId: string, event: string) =>
    (await t.services.store.audit.list({ userId, event })).length;

  async function verify(
    body: Record<string, string>,
    retryKey: string | undefined,
    serviceKey = key,
  ): Promise<{
    status: number;
    body: { error: number; message: string; result: { valid: boolean } | null };
  }> {
    const response = await fetch(`${base}${API}/tempPass/verify`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${serviceKey}`,
        ...(retryKey !== undefined && { 'idempotency-key': retryKey }),
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as never };
  }

  async function check(
    fields: Record<string, string>,
    retryKey: string,
    json: boolean,
  ): Promise<{ status: number; body: { result: { value?: boolean; error?: { message: string } } } }> {
    const response = await fetch(`${base}/validate/check`, {
      method: 'POST',
      headers: {
        'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
        authorization: key,
        'idempotency-key': retryKey,
      },
      body: json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
    });
    return { status: response.status, body: (await response.json()) as never };
  }

  it('answers a retry of tempPass/verify with the first answer: the code used once, one audit entry', async () => {
    const { user, code } = await issued();
    const retryKey = idempotencyKey();
    const first = await verify({ username: user.username, code }, retryKey);
    const again = await verify({ username: user.username, code }, retryKey);
    expect(first).toEqual({ status: 200, body: { error: 0, message: '', result: { valid: true } } });
    expect(again).toEqual(first);
    expect(await events(user.id, 'code.used')).toBe(1);
    expect(await events(user.id, 'code.verify_failed')).toBe(0);
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
    // Without the key, or with another service key's, it is another request: the code is used up.
    expect((await verify({ username: user.username, code }, undefined)).body.result).toEqual({
      valid: false,
    });
    expect((await verify({ username: user.username, code }, retryKey, otherKey)).body.result).toEqual({
      valid: false,
    });
    expect(await events(user.id, 'code.verify_failed')).toBe(2);
  });

  it('refuses the same key with another body (422), and treats the key anew after its window', async () => {
    const { user, code } = await issued();
    const retryKey = idempotencyKey();
    const wrong = code.replace(/.$/, (last) => (last === '2' ? '3' : '2'));
    expect((await verify({ username: user.username, code: wrong }, retryKey)).body.result).toEqual({
      valid: false,
    });
    const other = await verify({ username: user.username, code }, retryKey);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: 2, result: null });
    expect(other.body.message).toContain('Idempotency-Key');
    expect(await events(user.id, 'code.verify_failed')).toBe(1);
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);

    t.clock.advance(WINDOW_SECONDS * 1000);
    expect((await verify({ username: user.username, code }, retryKey)).body.result).toEqual({ valid: true });
    expect(await events(user.id, 'code.used')).toBe(1);
  });

  it('verifies once of twelve parallel requests with the same key; the others get its answer or 409', async () => {
    const { user, code } = await issued();
    const retryKey = idempotencyKey();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => verify({ userId: user.id, code }, retryKey)),
    );
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body.result).toEqual({ valid: true });
      else expect(answer).toMatchObject({ status: 409, body: { error: 2 } });
    }
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(await events(user.id, 'code.used')).toBe(1);
    expect(await events(user.id, 'code.verify_failed')).toBe(0);
    // Once answered, every retry gets the answer.
    expect((await verify({ userId: user.id, code }, retryKey)).body.result).toEqual({ valid: true });
  });

  it('answers a retry of /validate/check (form and JSON) with the first answer, and refuses another pass with the key', async () => {
    const { user, code } = await issued();
    const retryKey = idempotencyKey();
    const fields = { user: user.username, pass: code };
    const first = await check(fields, retryKey, false);
    const again = await check(fields, retryKey, true);
    expect(first).toMatchObject({ status: 200, body: { result: { value: true } } });
    expect(again).toMatchObject({ status: 200, body: { result: { value: true } } });
    expect(await events(user.id, 'code.used')).toBe(1);
    expect(await events(user.id, 'code.verify_failed')).toBe(0);
    const other = await check({ ...fields, pass: 'WRONGWRONG' }, retryKey, false);
    expect(other.status).toBe(422);
    expect(other.body.result.error?.message).toMatch(/^ERR905: .*Idempotency-Key/);
    expect(await events(user.id, 'code.verify_failed')).toBe(0);
  });

  it('gives the use back and forgets the key when the first answer did not get out: the retry is verified anew', async () => {
    const { user, code } = await issued();
    const retryKey = idempotencyKey();
    // The verification is held after it used the code, until its client has gone.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const verifyInStore = t.services.store.codes.verify.bind(t.services.store.codes);
    const spy = vi.spyOn(t.services.store.codes, 'verify').mockImplementation(async (call) => {
      const outcome = await verifyInStore(call);
      await held;
      return outcome;
    });
    try {
      // A connection of its own, whose closing the server sees before the store answers.
      const opened = new Promise<Socket>((resolve) => t.app.server.once('connection', resolve));
      const leaving = request(`${base}${API}/tempPass/verify`, {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          'idempotency-key': retryKey,
        },
      });
      leaving.on('error', () => undefined);
      leaving.end(JSON.stringify({ userId: user.id, code }));
      const connection = await opened;
      await expect.poll(() => spy.mock.calls.length).toBe(1);
      const closed = new Promise((resolve) => connection.once('close', resolve));
      leaving.destroy();
      await closed;
      release();
      await expect.poll(() => events(user.id, 'code.use_given_back')).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect((await verify({ userId: user.id, code }, retryKey)).body.result).toEqual({ valid: true });
    expect(await events(user.id, 'code.used')).toBe(2);
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
  });

  it('refuses a header that cannot be a key, and documents the header in the OpenAPI document', async () => {
    const { user, code } = await issued();
    const refused = await verify({ userId: user.id, code }, 'x'.repeat(300));
    expect(refused).toMatchObject({ status: 400, body: { error: 2 } });
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
    const document = (await t.app.inject({ url: '/dea/api/docs/json' })).json<{
      paths: Record<string, { post: { parameters?: { name: string; in: string }[]; responses: object } }>;
    }>();
    const operation = document.paths[`${API}/tempPass/verify`]?.post;
    expect(operation?.parameters).toContainEqual(
      expect.objectContaining({ name: 'idempotency-key', in: 'header' }),
    );
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['409', '422']));
  });
});
