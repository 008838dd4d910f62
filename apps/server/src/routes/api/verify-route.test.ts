import { Envelope, VerifyResult } from '@dea/contract';
import Value from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServiceKey } from '../../domain/codes/service-keys.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { recordPostgresQueries } from '../../testing/recorded-sql.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { leavingClient } from '../../testing/leaving-client.js';
import { createTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

const MINUTE = 60_000;

describe.each(STORE_KINDS)('POST tempPass/verify on %s', (kind) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ key } = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      'radius',
      ['verify'],
      t.clock.now(),
    ));
  });
  afterAll(() => t.close());

  async function issuedCode(policy: Record<string, unknown> = {}): Promise<{ user: TestUser; code: string }> {
    const user = await t.createUser({
      policy: { enableECode: true, emergencyCodeDelivery: 'Display', ...policy },
    });
    const session = await t.signIn(user);
    const response = await t.call(`${API}/tempPass/create`, bodies.create(user.id), session);
    const code = response.json<{ result: { rows: { password: string }[] } }>().result.rows[0]?.password ?? '';
    return { user, code };
  }
  /** `null` sends no Authorization header at all. */
  const verify = (userId: string, code: string, serviceKey: string | null = key) =>
    t.call(
      `${API}/tempPass/verify`,
      { userId, code },
      undefined,
      serviceKey === null ? {} : { authorization: `Bearer ${serviceKey}` },
    );
  const events = (userId: string, event: string) => t.services.store.audit.list({ userId, event });

  it('accepts a valid code once, then answers false; both audited', async () => {
    const { user, code } = await issuedCode();
    const first = await verify(user.id, code);
    expect(first.statusCode).toBe(200);
    const body: unknown = first.json();
    expect(Value.Check(Envelope(VerifyResult), body)).toBe(true);
    expect(body).toEqual({ error: 0, message: '', result: { valid: true } });
    expect((await verify(user.id, code)).json()).toEqual({ error: 0, message: '', result: { valid: false } });
    expect(await events(user.id, 'code.used')).toHaveLength(1);
    const failed = await events(user.id, 'code.verify_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.actor).toBe('service-key:radius');
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
  });

  it('gives the use back when the client left before its answer: the code still works', async () => {
    const { user, code } = await issuedCode();
    // The verification is held after it used the code, until its client has gone.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const verifyInStore = t.services.store.codes.verify.bind(t.services.store.codes);
    const spy = vi.spyOn(t.services.store.codes, 'verify').mockImplementation(async (call) => {
      const answer = await verifyInStore(call);
      await held;
      return answer;
    });
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const client = leavingClient(
        `${base}${API}/tempPass/verify`,
        { userId: user.id, code },
        { authorization: `Bearer ${key}` },
      );
      await expect.poll(() => spy.mock.calls.length).toBe(1);
      client.leave();
      expect(await client.left).toBe('left');
      // The server has seen the client go (its connection closed) before the store answers.
      const connections = () =>
        new Promise<number>((resolve, reject) =>
          t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
        );
      await expect.poll(connections).toBe(0);
      release();
      await expect.poll(async () => (await events(user.id, 'code.use_given_back')).length).toBe(1);
    } finally {
      // Also when a step above failed: the held verification ends, and the server can close.
      release();
      spy.mockRestore();
      await new Promise((resolve) => t.app.server.close(resolve));
    }
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
    expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: true } });
  });

  it('accepts what a person types: lower case, spaces and dashes', async () => {
    const { user, code } = await issuedCode();
    const typed = `${code.slice(0, 5).toLowerCase()}-${code.slice(5)} `;
    expect((await verify(user.id, typed)).json()).toMatchObject({ result: { valid: true } });
  });

  it("refuses a wrong code and another user's code", async () => {
    const { user, code } = await issuedCode();
    const other = await issuedCode();
    expect((await verify(user.id, other.code)).json()).toMatchObject({ result: { valid: false } });
    expect(
      (
        await verify(
          user.id,
          code.replace(/.$/, (last) => (last === '2' ? '3' : '2')),
        )
      ).json(),
    ).toMatchObject({ result: { valid: false } });
    expect((await verify('no-such-user', code)).json()).toMatchObject({ result: { valid: false } });
    // The right code still works afterwards.
    expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: true } });
    expect((await verify(other.user.id, other.code)).json()).toMatchObject({ result: { valid: true } });
  });

  it('refuses the code of a disabled user', async () => {
    const { user, code } = await issuedCode();
    await t.services.store.users.update(user.id, { disabled: true });
    expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: false } });
  });

  it('refuses a code after its validity period', async () => {
    const { user, code } = await issuedCode({ codeValidityMinutes: 5 });
    t.clock.advance(5 * MINUTE);
    expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: false } });
  });

  it('accepts a code as many times as the policy allows uses', async () => {
    const { user, code } = await issuedCode({ codeUses: 2 });
    const answers = [];
    for (let index = 0; index < 3; index += 1)
      answers.push((await verify(user.id, code)).json<{ result: { valid: boolean } }>().result.valid);
    expect(answers).toEqual([true, true, false]);
  });

  it('lets only one of concurrent verifications of one code succeed', async () => {
    const { user, code } = await issuedCode();
    const answers = await Promise.all(Array.from({ length: 8 }, () => verify(user.id, code)));
    const valid = answers.filter((answer) => answer.json<{ result: { valid: boolean } }>().result.valid);
    expect(valid).toHaveLength(1);
  });

  it('answers 401 without a service key, with a wrong, a revoked or an unscoped one, and consumes nothing', async () => {
    const { user, code } = await issuedCode();
    const revoked = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      'old',
      ['verify'],
      t.clock.now(),
    );
    await t.services.store.serviceKeys.revoke(revoked.serviceKey.id, t.clock.now());
    const unscoped = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      'reports',
      ['audit'],
      t.clock.now(),
    );
    const tampered = key.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    for (const presented of [null, 'nonsense', `Basic ${key}`, tampered, revoked.key, unscoped.key]) {
      const response = await verify(user.id, code, presented);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 3, result: null });
    }
    // A session does not replace the service key.
    const session = await t.signIn(user);
    const withSession = await t.call(`${API}/tempPass/verify`, { userId: user.id, code }, session);
    expect(withSession.statusCode).toBe(401);
    expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: true } });
  });

  const byName = (username: string, code: string) =>
    t.call(`${API}/tempPass/verify`, { username, code }, undefined, { authorization: `Bearer ${key}` });

  it('verifies by user name as by id: the same answers, the same audit', async () => {
    const { user, code } = await issuedCode();
    const spaced = `${code.slice(0, 3).toLowerCase()} ${code.slice(3, 6)}-${code.slice(6)}`;
    expect((await byName(user.username, 'WRONG2345')).json()).toEqual({
      error: 0,
      message: '',
      result: { valid: false },
    });
    expect((await byName('nobody-by-that-name', code)).json()).toEqual({
      error: 0,
      message: '',
      result: { valid: false },
    });
    expect((await verify('no-such-user', code)).json()).toEqual({
      error: 0,
      message: '',
      result: { valid: false },
    });
    expect((await byName(user.username, spaced)).json()).toEqual({
      error: 0,
      message: '',
      result: { valid: true },
    });
    expect((await byName(user.username, code)).json()).toMatchObject({ result: { valid: false } });
    const failures = await events(user.id, 'code.verify_failed');
    expect(failures.map((entry) => entry.details)).toEqual([
      { reason: 'no-usable-code', failures: 1 },
      { reason: 'no-usable-code', failures: 1 },
    ]);
    expect(await events(user.id, 'code.used')).toMatchObject([{ actor: 'service-key:radius' }]);
    const unknown = (await t.services.store.audit.list({ event: 'code.verify_failed' })).filter(
      (entry) => entry.userId === null,
    );
    expect(unknown.slice(-2).map((entry) => entry.details)).toEqual([
      { reason: 'unknown-user' },
      { reason: 'unknown-user' },
    ]);
  });

  it('reads the service key with the user it verifies for, then verifies: two statements on PostgreSQL', async () => {
    const { user, code } = await issuedCode();
    const recorded = kind === 'postgres' ? recordPostgresQueries() : undefined;
    let answers: unknown[];
    try {
      answers = [
        (await verify(user.id, 'WRONG2345')).json(),
        (await byName(user.username.toUpperCase(), code)).json(),
        (await verify(user.id, code, `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).statusCode,
      ];
    } finally {
      recorded?.stop();
    }
    expect(answers).toEqual([
      { error: 0, message: '', result: { valid: false } },
      { error: 0, message: '', result: { valid: true } },
      401,
    ]);
    if (recorded === undefined) return;
    // Statements about this user (other tests' work may run beside): per request one read of the
    // key with the user, then dea_verify_code; a wrong key's request reads and goes no further.
    const keyId = /^dea_([^.]+)\./.exec(key)?.[1] ?? '';
    expect(keyId).toHaveLength(36);
    const about = recorded.queries.filter(
      (query) =>
        JSON.stringify(query.values).includes(user.id) ||
        JSON.stringify(query.values).includes(user.username) ||
        JSON.stringify(query.values).includes(keyId),
    );
    expect(about.map((query) => (query.text.includes('dea_verify_code') ? 'verify' : 'read'))).toEqual([
      'read',
      'verify',
      'read',
      'verify',
      'read',
    ]);
  });

  it('answers an id no store can hold (a NUL) as it answers an unknown user: 401 without a valid key, false with one', async () => {
    const forged = `dea_${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.${'A'.repeat(43)}`;
    const unheld = 'a\u0000b';
    expect((await verify(unheld, 'ABCDEFGHJK', forged)).statusCode).toBe(401);
    const answer = await verify(unheld, 'ABCDEFGHJK');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ error: 0, message: '', result: { valid: false } });
  });

  it('takes any letter case only where the alphabet has one case', async () => {
    const lower = await issuedCode({ codeAlphabet: 'abcdefghjkmnpqrstuvwxyz23456789' });
    expect((await byName(lower.user.username, lower.code.toUpperCase())).json()).toMatchObject({
      result: { valid: true },
    });
    const mixed = await issuedCode({ codeAlphabet: 'abcdefghjkABCDEFGHJK' });
    const swapped = [...mixed.code]
      .map((char) => (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()))
      .join('');
    expect((await byName(mixed.user.username, swapped)).json()).toMatchObject({ result: { valid: false } });
    expect((await byName(mixed.user.username, mixed.code)).json()).toMatchObject({ result: { valid: true } });
  });

  it('refuses a malformed body with 400', async () => {
    for (const body of [
      { userId: 'x' },
      { userId: 'x', code: 5 },
      { userId: 'x', code: 'A', extra: 1 },
      { code: 'A' },
      { userId: 'x', username: 'y', code: 'A' },
      { username: '', code: 'A' },
    ]) {
      const response = await t.call(`${API}/tempPass/verify`, body, undefined, {
        authorization: `Bearer ${key}`,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 2, result: null });
    }
  });
});
