import { randomBytes } from 'node:crypto';
import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { deriveKeys } from '../../crypto/secret-keys.js';
import { newId } from '../../crypto/ids.js';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { cutoffsAt } from '../../testing/purge-cutoffs.js';
import { dumpStore } from '../../testing/store-dump.js';
import { STORE_KINDS, type TestStore } from '../../testing/stores.js';
import { DEFAULT_CODE_ALPHABET } from './code-settings.js';
import { issueCode } from './codes.js';
import { resolvePolicy } from '../policies/policy.js';
import {
  MemoryAnswers,
  RetriedVerifications,
  answerOnce,
  idempotencyKeyOf,
  type IdempotentAsk,
} from './retried-requests.js';
import { Verification } from './verification.js';

const KEYS = deriveKeys(randomBytes(32));
const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);
const WINDOW = 60_000;
const CODE_DEFAULTS = {
  codeLength: 10,
  codeAlphabet: DEFAULT_CODE_ALPHABET,
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 5,
};

function secondStore(testStore: TestStore): Promise<Store> {
  return openStore({
    dataDir: testStore.dataDir,
    ...(testStore.databaseUrl !== undefined && { databaseUrl: testStore.databaseUrl }),
  });
}

async function userWithCode(store: Store): Promise<{ userId: string; username: string; code: string }> {
  const userId = newId(T0);
  const username = `retry-${userId.slice(-12)}`;
  await store.users.create({
    id: userId,
    username: usernameOrThrow(username),
    passwordHash: 'x',
    fullName: 'R',
    locale: 'en',
    createdAt: T0,
  });
  const groupId = newId(T0);
  await store.groups.create({ id: groupId, name: `group-${userId}`, priority: 0 });
  await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, {
    enableECode: true,
    emergencyCodeDelivery: 'Display',
  });
  await store.groups.addMember(groupId, userId);
  const policy = resolvePolicy(await store.groups.findPolicyOfUser(userId, POLICY_CATEGORY_SELF_SERVICE), {
    ...CODE_DEFAULTS,
  });
  const { code } = await issueCode(store, KEYS.codeHash, {
    userId,
    policy,
    channelType: null,
    clientAddress: null,
    now: T0,
  });
  return { userId, username, code };
}

describe('an instance’s memory of answers', () => {
  it('answers a retry with the first answer, refuses another request with the key, and forgets after the window', async () => {
    const memory = new MemoryAnswers<string>(10);
    let worked = 0;
    const work = () => Promise.resolve(`answer-${(worked += 1)}`);
    const ask = { key: 'k', fingerprint: 'f', now: T0, windowMs: WINDOW };
    expect(await answerOnce(memory, ask, work)).toEqual({
      state: 'answered',
      answer: 'answer-1',
      repeated: false,
    });
    expect(await answerOnce(memory, { ...ask, now: T0 + WINDOW - 1 }, work)).toEqual({
      state: 'answered',
      answer: 'answer-1',
      repeated: true,
    });
    expect(await answerOnce(memory, { ...ask, fingerprint: 'other' }, work)).toEqual({
      state: 'other-request',
    });
    expect(await answerOnce(memory, { ...ask, now: T0 + WINDOW }, work)).toMatchObject({
      answer: 'answer-2',
      repeated: false,
    });
    expect(worked).toBe(2);
  });

  it('keeps at most its count, forgetting the oldest first', async () => {
    const memory = new MemoryAnswers<string>(3);
    for (const key of ['a', 'b', 'c', 'd'])
      await answerOnce(memory, { key, fingerprint: 'f', now: T0, windowMs: WINDOW }, () =>
        Promise.resolve(key),
      );
    expect(memory.size).toBe(3);
    // 'a' went first: its retry is worked anew; 'd' is still remembered.
    const again = (key: string) =>
      answerOnce(memory, { key, fingerprint: 'f', now: T0 + 1, windowMs: WINDOW }, () =>
        Promise.resolve('new'),
      );
    expect(await again('d')).toMatchObject({ answer: 'd', repeated: true });
    expect(await again('a')).toMatchObject({ answer: 'new', repeated: false });
  });

  it('answers a copy that comes while the first is worked on as in flight, and forgets work that failed', async () => {
    const memory = new MemoryAnswers<string>(10);
    const ask = { key: 'k', fingerprint: 'f', now: T0, windowMs: WINDOW };
    let finish: (answer: string) => void = () => undefined;
    const first = answerOnce(memory, ask, () => new Promise<string>((resolve) => (finish = resolve)));
    expect(await answerOnce(memory, ask, () => Promise.resolve('second'))).toEqual({ state: 'in-flight' });
    finish('first');
    expect(await first).toMatchObject({ answer: 'first' });
    await expect(
      answerOnce(memory, { ...ask, key: 'failing' }, () => Promise.reject(new Error('store down'))),
    ).rejects.toThrow('store down');
    expect(
      await answerOnce(memory, { ...ask, key: 'failing' }, () => Promise.resolve('worked anew')),
    ).toMatchObject({ answer: 'worked anew', repeated: false });
  });

  it('reads an Idempotency-Key as a Structured Fields string or as bare text, and refuses what cannot be one', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(idempotencyKeyOf(' 8e03978e ')).toBe('8e03978e');
    expect(idempotencyKeyOf('""')).toBeInstanceOf(Error);
    expect(idempotencyKeyOf('x'.repeat(256))).toBeInstanceOf(Error);
    expect(idempotencyKeyOf('caf\u00e9')).toBeInstanceOf(Error);
    expect(idempotencyKeyOf(['a', 'b'])).toBeInstanceOf(Error);
  });
});

describe.each(STORE_KINDS)('answers of retried verifications in the store on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'keeps the answer for the window, never the key or the code in clear, and the purge removes it after',
    async ({ testStore }) => {
      const { store } = testStore;
      const retried = new RetriedVerifications(store.verifyAnswers, KEYS.identifier, WINDOW);
      const verification = new Verification(store, [KEYS.codeHash], CODE_DEFAULTS, {
        maxFailures: 10,
        lockMs: null,
      });
      const { userId, username, code } = await userWithCode(store);
      const user = await store.users.findById(userId);
      const ask: IdempotentAsk = {
        idempotencyKey: 'key-1',
        caller: 'service-key:k1',
        user: username,
        request: { username, code },
        now: T0,
      };
      let verified = 0;
      const verify = (now: number) => () => {
        verified += 1;
        return verification.verify({ user, code, actor: 'test', clientAddress: null, now });
      };
      expect(await retried.verify(ask, verify(T0))).toMatchObject({
        state: 'answered',
        repeated: false,
        outcome: { valid: true },
      });
      expect(await retried.verify({ ...ask, now: T0 + WINDOW - 1 }, verify(T0 + 1))).toMatchObject({
        state: 'answered',
        repeated: true,
        outcome: { valid: true },
      });
      // Another code with the same key is another request; another caller's key is its own.
      expect(
        await retried.verify({ ...ask, request: { username, code: 'WRONGWRONG' } }, verify(T0 + 2)),
      ).toEqual({
        state: 'other-request',
      });
      expect(await retried.verify({ ...ask, caller: 'service-key:k2' }, verify(T0 + 3))).toMatchObject({
        repeated: false,
        outcome: { valid: false },
      });
      expect(verified).toBe(2);
      expect(await store.audit.list({ userId, event: 'code.used' })).toHaveLength(1);

      const rows = (await dumpStore(testStore)).verify_answers ?? [];
      expect(rows).toHaveLength(2);
      expect(JSON.stringify(rows)).not.toContain(code);
      expect(JSON.stringify(rows)).not.toContain('key-1');

      expect(await store.retention.removeBatch('verifyAnswers', cutoffsAt(T0 + WINDOW - 1), 100)).toBe(0);
      expect(await store.retention.removeBatch('verifyAnswers', cutoffsAt(T0 + WINDOW + 3), 100)).toBe(2);
      // After its window the key asks anew: the code is used up by then.
      expect(await retried.verify({ ...ask, now: T0 + WINDOW }, verify(T0 + WINDOW))).toMatchObject({
        repeated: false,
        outcome: { valid: false },
      });
    },
  );

  storeTest(
    'verifies once of twenty parallel requests with one key over two instances of the store',
    async ({ testStore, onTestFinished }) => {
      const other = await secondStore(testStore);
      onTestFinished(() => other.close());
      const stores = [testStore.store, other];
      const { userId, username, code } = await userWithCode(testStore.store);
      const user = await testStore.store.users.findById(userId);
      const instances = stores.map((store) => ({
        retried: new RetriedVerifications(store.verifyAnswers, KEYS.identifier, WINDOW),
        verification: new Verification(store, [KEYS.codeHash], CODE_DEFAULTS, {
          maxFailures: 10,
          lockMs: null,
        }),
      }));
      let verified = 0;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) => {
          const instance = instances[index % 2];
          if (instance === undefined) throw new Error('no instance');
          return instance.retried.verify(
            {
              idempotencyKey: 'parallel',
              caller: 'service-key:k1',
              user: username,
              request: { username, code },
              now: T0 + index,
            },
            () => {
              verified += 1;
              return instance.verification.verify({
                user,
                code,
                actor: 'test',
                clientAddress: null,
                now: T0 + index,
              });
            },
          );
        }),
      );
      expect(verified).toBe(1);
      for (const answer of answers) {
        if (answer.state === 'answered') expect(answer.outcome.valid).toBe(true);
        else expect(answer.state).toBe('in-flight');
      }
      expect(await testStore.store.audit.list({ userId, event: 'code.used' })).toHaveLength(1);
      expect(await testStore.store.audit.list({ userId, event: 'code.verify_failed' })).toHaveLength(0);
    },
  );
});
