import type { ChannelKey } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { createServiceKey } from './service-keys.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { createTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

const MINUTE = 60_000;
const MAX_FAILURES = 3;
const INVALID = { error: 0, message: '', result: { valid: false } };
const VALID = { error: 0, message: '', result: { valid: true } };
const LONG_LIVED = {
  enableECode: true,
  emergencyCodeDelivery: 'Display',
  codeValidityMinutes: 600,
  maxUnusedCodes: 10,
};

const swapCase = (code: string): string =>
  [...code].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

describe.each(STORE_KINDS)('code verification on %s', (kind) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      DEA_VERIFY_MAX_FAILURES: String(MAX_FAILURES),
      DEA_VERIFY_LOCK_MINUTES: '15',
    });
    ({ key } = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      'vpn',
      ['verify'],
      t.clock.now(),
    ));
  });
  afterAll(() => t.close());

  async function newCode(user: TestUser, alphabet?: string): Promise<string> {
    const response = await t.call(`${API}/tempPass/create`, bodies.create(user.id), await t.signIn(user));
    const code = response.json<{ result: { rows: { password: string }[] } }>().result.rows[0]?.password ?? '';
    if (alphabet === undefined) expect(code).toMatch(/^[2-9A-Z]{10}$/);
    else expect([...code].every((character) => alphabet.includes(character))).toBe(true);
    return code;
  }
  const verify = (userId: string, code: string) =>
    t.call(`${API}/tempPass/verify`, { userId, code }, undefined, { authorization: `Bearer ${key}` });
  const answer = async (userId: string, code: string) => {
    const response = await verify(userId, code);
    expect(response.statusCode).toBe(200);
    return response.json<unknown>();
  };
  const events = (userId: string, event: string) => t.services.store.audit.list({ userId, event });
  const wrong = (code: string) => code.replace(/^./, (first) => (first === '2' ? '3' : '2'));

  it('answers wrong, expired, used, locked, unknown-user and disabled-user codes alike', async () => {
    const user = await t.createUser({ policy: { ...LONG_LIVED, codeValidityMinutes: 5 } });
    const used = await newCode(user);
    expect(await answer(user.id, used)).toEqual(VALID);
    const expired = await newCode(user);
    t.clock.advance(5 * MINUTE);
    const answers = [
      await answer(user.id, used),
      await answer(user.id, expired),
      await answer(user.id, wrong(used)),
    ];
    // That was three failures: the user is locked now, and a fresh code is refused the same way.
    const fresh = await newCode(user);
    answers.push(await answer(user.id, fresh), await answer('no-such-user', fresh));
    const disabled = await t.createUser();
    const disabledCode = await newCode(disabled);
    await t.services.store.users.update(disabled.id, { disabled: true });
    answers.push(await answer(disabled.id, disabledCode));
    expect(answers).toEqual(Array.from({ length: 6 }, () => INVALID));
    expect(await events(user.id, 'code.verify_locked')).toHaveLength(1);
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
  });

  it('counts failures across new codes, locks at the limit without consuming, and unlocks after the lock time', async () => {
    const user = await t.createUser({ policy: LONG_LIVED });
    const first = await newCode(user);
    expect(await answer(user.id, wrong(first))).toEqual(INVALID);
    expect(await answer(user.id, wrong(first))).toEqual(INVALID);
    const second = await newCode(user);
    expect(await answer(user.id, wrong(second))).toEqual(INVALID);
    expect(await answer(user.id, second)).toEqual(INVALID);
    expect(await answer(user.id, first)).toEqual(INVALID);
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(2);
    // Every attempt is counted before its code is looked at, the two refused while locked too;
    // only the three before the lock were compared with codes.
    expect(await t.services.store.verifyFailures.find(user.id)).toMatchObject({ failures: MAX_FAILURES + 2 });

    const lockout = await events(user.id, 'code.verify_lockout');
    expect(lockout).toHaveLength(1);
    expect(lockout[0]?.details).toMatchObject({ failures: MAX_FAILURES });
    const locked = await events(user.id, 'code.verify_locked');
    expect(locked).toHaveLength(2);
    expect(locked[0]).toMatchObject({ actor: 'service-key:vpn', clientAddress: '127.0.0.1' });
    expect(await events(user.id, 'code.verify_failed')).toHaveLength(MAX_FAILURES);

    t.clock.advance(15 * MINUTE - 1);
    expect(await answer(user.id, second)).toEqual(INVALID);
    t.clock.advance(1);
    expect(await answer(user.id, second)).toEqual(VALID);
    expect(await answer(user.id, first)).toEqual(VALID);
    expect(await t.services.store.verifyFailures.find(user.id)).toBeUndefined();
  });

  it('compares at most the limit of a burst of parallel guesses with codes, by id or by user name', async () => {
    const user = await t.createUser({ policy: LONG_LIVED });
    const code = await newCode(user);
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        t.call(
          `${API}/tempPass/verify`,
          index % 2 === 0
            ? { userId: user.id, code: wrong(code) }
            : { username: user.username, code: wrong(code) },
          undefined,
          { authorization: `Bearer ${key}` },
        ),
      ),
    );
    expect(guesses.map((response) => response.json<unknown>())).toEqual(
      Array.from({ length: 12 }, () => INVALID),
    );
    expect(await events(user.id, 'code.verify_failed')).toHaveLength(MAX_FAILURES);
    expect(await events(user.id, 'code.verify_locked')).toHaveLength(12 - MAX_FAILURES);
    expect(await events(user.id, 'code.verify_lockout')).toHaveLength(1);
    expect(await answer(user.id, code)).toEqual(INVALID);
  });

  it('forgets failures on a success: only consecutive failures lock', async () => {
    const user = await t.createUser({ policy: LONG_LIVED });
    for (let round = 0; round < 3; round += 1) {
      const code = await newCode(user);
      for (let failure = 1; failure < MAX_FAILURES; failure += 1) {
        expect(await answer(user.id, wrong(code))).toEqual(INVALID);
      }
      expect(await answer(user.id, code)).toEqual(VALID);
    }
    expect(await events(user.id, 'code.verify_lockout')).toHaveLength(0);
    expect(await events(user.id, 'code.used')).toHaveLength(3);
  });

  it('keeps failures of one user from locking another', async () => {
    const attacked = await t.createUser({ policy: LONG_LIVED });
    const bystander = await t.createUser({ policy: LONG_LIVED });
    const code = await newCode(bystander);
    for (let failure = 0; failure < MAX_FAILURES; failure += 1) await answer(attacked.id, wrong(code));
    expect(await answer(bystander.id, code)).toEqual(VALID);
  });

  it('verifies a code sent over a channel just like one shown on screen, and audits no code', async () => {
    const channels: Partial<Record<ChannelKey, string>> = { mobile: '+49 170 5550199' };
    const user = await t.createUser({
      policy: { enableECode: true, emergencyCodeDelivery: 'Channel' },
      channels,
    });
    const session = await t.signIn(user);
    const [channel] = await t.services.store.channels.listOfUser(user.id);
    const sent = await t.call(
      `${API}/tempPass/createAndSend`,
      bodies.createAndSend(user.id, 'sms', channel?.id ?? ''),
      session,
    );
    expect(sent.json()).toMatchObject({ error: 0 });
    const message = (await t.services.store.outbox.list(1000)).find(
      (candidate) => candidate.userId === user.id,
    );
    if (message === undefined) throw new Error('no outbox message');
    const code = /([2-9A-Z]{10})/.exec(openOutboxMessage([t.services.keys.seal], message).text)?.[1] ?? '';
    expect(code).toHaveLength(10);
    expect(await answer(user.id, code)).toEqual(VALID);
    expect(await answer(user.id, code)).toEqual(INVALID);
    const audit = await t.services.store.audit.list({ userId: user.id });
    expect(audit.map((entry) => entry.event)).toEqual(
      expect.arrayContaining(['code.used', 'code.verify_failed']),
    );
    expect(JSON.stringify(audit)).not.toContain(code);
  });

  it('lets exactly one of 25 parallel verifications of one code succeed', async () => {
    const user = await t.createUser({ policy: { ...LONG_LIVED } });
    const code = await newCode(user);
    const answers = await Promise.all(Array.from({ length: 25 }, () => verify(user.id, code)));
    const valid = answers.filter((response) => response.json<typeof VALID>().result.valid);
    expect(valid).toHaveLength(1);
    expect(await events(user.id, 'code.used')).toHaveLength(1);
    const refused = [
      ...(await events(user.id, 'code.verify_failed')),
      ...(await events(user.id, 'code.verify_locked')),
    ];
    expect(refused).toHaveLength(24);
  });

  it.each([
    // alphabet, how the code may be typed (from the code as issued), and a typing that is refused
    ['ABCDEFGHJK23456789', (code: string) => ` ${code.toLowerCase().slice(0, 4)}-${code.slice(4)} `, null],
    ['abcdefghjk23456789', (code: string) => code.toUpperCase(), null],
    ['ABCDEFabcdef234567', (code: string) => `${code.slice(0, 5)} ${code.slice(5)}`, swapCase],
    ['ABCD-EFGH23456789', (code: string) => code.toLowerCase(), (code: string) => code.replaceAll('-', '')],
    ['ÄÖÜABCDEFGH234567', (code: string) => code.toLowerCase(), null],
  ])('takes a code typed as the alphabet %s allows', async (codeAlphabet, typed, refused) => {
    const user = await t.createUser({ policy: { ...LONG_LIVED, codeAlphabet, codeLength: 12 } });
    const stored = await t.services.store.users.findById(user.id);
    const attempt = (code: string) =>
      t.services.verification.verify({
        user: stored,
        code,
        actor: 'test',
        clientAddress: null,
        now: t.clock.now(),
      });
    const first = await newCode(user, codeAlphabet);
    // A refused typing must differ from the code, or there would be nothing to refuse.
    if (refused !== null && refused(first) !== first) {
      expect(await attempt(refused(first))).toMatchObject({ valid: false, reason: 'no-usable-code' });
    }
    expect(await attempt(typed(first))).toMatchObject({ valid: true });
    expect(await attempt(typed(first))).toMatchObject({ valid: false, reason: 'no-usable-code' });
  });

  it('verifies the codes of several users at once, each as if alone (one statement on PostgreSQL)', async () => {
    const alphabets = [undefined, undefined, 'abcdefghjk23456789', 'ÄÖÜABCDEFGH234567'];
    const users = await Promise.all(
      alphabets.map((codeAlphabet) =>
        t.createUser({ policy: codeAlphabet === undefined ? LONG_LIVED : { ...LONG_LIVED, codeAlphabet } }),
      ),
    );
    const codes = await Promise.all(users.map((user, index) => newCode(user, alphabets[index])));
    const stored = await Promise.all(users.map((user) => t.services.store.users.findById(user.id)));
    const attempt = (index: number, code: string, known = true) =>
      t.services.verification.verify({
        user: known ? stored[index] : undefined,
        code,
        actor: 'test',
        clientAddress: null,
        now: t.clock.now(),
      });
    // All in one turn of the event loop.
    const outcomes = await Promise.all([
      attempt(0, codes[0]!),
      attempt(1, wrong(codes[1]!)),
      attempt(2, codes[2]!.toUpperCase()),
      attempt(3, codes[3]!.toLowerCase()),
      attempt(1, codes[1]!, false),
      attempt(0, codes[0]!),
    ]);
    expect(outcomes.map((outcome) => (outcome.valid ? 'valid' : outcome.reason))).toEqual([
      'valid',
      'no-usable-code',
      'valid',
      'valid',
      'unknown-user',
      'no-usable-code',
    ]);
    expect(await t.services.store.verifyFailures.find(users[1]!.id)).toMatchObject({ failures: 1 });
    expect(await events(users[0]!.id, 'code.used')).toHaveLength(1);
  });

  it('tells its callers why an attempt failed, for the audit log', async () => {
    const user = await t.createUser({ policy: LONG_LIVED });
    const code = await newCode(user);
    const attempt = { code, actor: 'test', clientAddress: null, now: t.clock.now() };
    const stored = await t.services.store.users.findById(user.id);
    const { verification } = t.services;
    expect(await verification.verify({ ...attempt, user: undefined })).toEqual({
      valid: false,
      reason: 'unknown-user',
    });
    expect(await verification.verify({ ...attempt, user: stored && { ...stored, disabled: true } })).toEqual({
      valid: false,
      reason: 'disabled',
    });
    for (let failure = 1; failure < MAX_FAILURES; failure += 1) {
      expect(await verification.verify({ ...attempt, code: wrong(code), user: stored })).toEqual({
        valid: false,
        reason: 'no-usable-code',
      });
    }
    expect(await verification.verify({ ...attempt, user: stored })).toEqual({
      valid: false,
      reason: 'locked',
    });
    expect(await verification.unlock(user.id, 'operator:test', t.clock.now())).toBe(true);
    expect(await events(user.id, 'code.verify_unlocked')).toMatchObject([{ actor: 'operator:test' }]);
    expect(await verification.verify({ ...attempt, user: stored })).toMatchObject({ valid: true });
    expect(await verification.unlock(user.id, 'operator:test', t.clock.now())).toBe(false);
  });
});

describe('a lock without a lock time', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { DEA_VERIFY_MAX_FAILURES: '1', DEA_VERIFY_LOCK_MINUTES: '0' });
  });
  afterAll(() => t.close());

  it('lasts until an operator unlocks the user', async () => {
    const user = await t.createUser({ policy: { ...LONG_LIVED, codeValidityMinutes: 10_000 } });
    const stored = await t.services.store.users.findById(user.id);
    const response = await t.call(`${API}/tempPass/create`, bodies.create(user.id), await t.signIn(user));
    const code = response.json<{ result: { rows: { password: string }[] } }>().result.rows[0]?.password ?? '';
    const attempt = (input: string) =>
      t.services.verification.verify({
        user: stored,
        code: input,
        actor: 'test',
        clientAddress: null,
        now: t.clock.now(),
      });
    expect(await attempt('WRONG')).toMatchObject({ valid: false, reason: 'no-usable-code' });
    t.clock.advance(5 * 24 * 60 * MINUTE);
    expect(await attempt(code)).toEqual({ valid: false, reason: 'locked' });
    await t.services.verification.unlock(user.id, 'operator', t.clock.now());
    expect(await attempt(code)).toMatchObject({ valid: true });
  });
});
