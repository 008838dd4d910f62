import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceKey } from '../../domain/codes/service-keys.js';
import {
  startTwoInstances,
  userWithIssuedCode,
  type Instance,
  type Instances,
} from '../../testing/instances.js';

const MAX_FAILURES = 10;

/** Verification on two instances behind one PostgreSQL, called over real HTTP. */
describe('verification on two instances on one PostgreSQL', () => {
  let instances: Instances;
  let a: Instance;
  let b: Instance;
  let key: string;

  beforeAll(async () => {
    instances = await startTwoInstances({ DEA_VERIFY_MAX_FAILURES: String(MAX_FAILURES) });
    ({ a, b } = instances);
    ({ key } = await createServiceKey(
      a.services.store,
      a.services.keys.serviceKey,
      'two',
      ['verify'],
      Date.now(),
    ));
  });
  afterAll(() => instances.close());

  const userWithCode = () => userWithIssuedCode(a, 'v2');

  /** By id, or by user name when `who` is `{ username }`. */
  const verify = async (
    instance: Instance,
    who: string | { username: string },
    code: string,
  ): Promise<boolean> => {
    const response = await fetch(`${instance.base}/dea/api/tempPass/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ ...(typeof who === 'string' ? { userId: who } : who), code }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { result: { valid: boolean } }).result.valid;
  };

  it('lets exactly one of 20 parallel verifications of one code, split over A and B, succeed', async () => {
    const { userId, code } = await userWithCode();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => verify(index % 2 === 0 ? a : b, userId, code)),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await b.services.store.audit.list({ userId, event: 'code.used' })).toHaveLength(1);
    // The 19 others are refusals: failures of this user (a used code), or, while 10 counted
    // attempts hold the lock, refusals because the user is locked; none of them went unaudited.
    const failed = await a.services.store.audit.list({ userId, event: 'code.verify_failed' });
    const locked = await a.services.store.audit.list({ userId, event: 'code.verify_locked' });
    expect(failed.length + locked.length).toBe(19);
  });

  it('counts failures made on A and B together, so the lock holds on both', async () => {
    const { userId, code } = await userWithCode();
    const wrong = code.replace(/^./, (first) => (first === '2' ? '3' : '2'));
    const answers = await Promise.all(
      Array.from({ length: MAX_FAILURES }, (_, index) => verify(index % 2 === 0 ? a : b, userId, wrong)),
    );
    expect(answers.some(Boolean)).toBe(false);
    expect(await b.services.store.verifyFailures.find(userId)).toMatchObject({ failures: MAX_FAILURES });
    expect(await verify(a, userId, code)).toBe(false);
    expect(await verify(b, userId, code)).toBe(false);
    expect(await a.services.store.codes.countActive(userId, Date.now())).toBe(1);
    expect(await a.services.store.audit.list({ userId, event: 'code.verify_lockout' })).toHaveLength(1);
    expect(await a.services.store.audit.list({ userId, event: 'code.verify_locked' })).toHaveLength(2);
  });

  it('counts failures by user name the same way: a parallel burst over A and B locks the user at the limit', async () => {
    const { userId, code } = await userWithCode();
    const who = { username: `v2-${userId}` };
    const wrong = code.replace(/^./, (first) => (first === '2' ? '3' : '2'));
    const answers = await Promise.all(
      Array.from({ length: MAX_FAILURES + 6 }, (_, index) =>
        verify(index % 2 === 0 ? a : b, who, wrong.toLowerCase()),
      ),
    );
    expect(answers.some(Boolean)).toBe(false);
    // Of 16 parallel guesses, exactly MAX_FAILURES were compared with codes; the rest met the lock.
    expect(await a.services.store.audit.list({ userId, event: 'code.verify_failed' })).toHaveLength(
      MAX_FAILURES,
    );
    expect(await a.services.store.audit.list({ userId, event: 'code.verify_locked' })).toHaveLength(6);
    expect(await a.services.store.audit.list({ userId, event: 'code.verify_lockout' })).toHaveLength(1);
    expect(await verify(b, who, code)).toBe(false);
    expect(await a.services.store.codes.countActive(userId, Date.now())).toBe(1);
  });
});
