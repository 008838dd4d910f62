import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceKey } from '../../domain/codes/service-keys.js';
import {
  startTwoInstances,
  userWithIssuedCode,
  type Instance,
  type Instances,
} from '../../testing/instances.js';

/**
 * A retry with the same Idempotency-Key that a load balancer sends to the other instance gets the
 * first answer: two instances on one PostgreSQL, over real HTTP. (One server per embedded store:
 * two instances of the SQLite store are in domain/codes/retried-requests.test.ts.)
 */
describe('verifications retried with an Idempotency-Key on two instances on one PostgreSQL', () => {
  let instances: Instances;
  let a: Instance;
  let b: Instance;
  let key: string;
  let next = 0;

  beforeAll(async () => {
    instances = await startTwoInstances();
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

  const userWithCode = () => userWithIssuedCode(a, 'r2');

  const verify = async (
    instance: Instance,
    body: Record<string, string>,
    retryKey: string,
  ): Promise<{ status: number; valid: boolean | undefined }> => {
    const response = await fetch(`${instance.base}/dea/api/tempPass/verify`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
        'idempotency-key': retryKey,
      },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { result: { valid: boolean } | null };
    return { status: response.status, valid: answer.result?.valid };
  };
  const events = async (userId: string, event: string) =>
    (await a.services.store.audit.list({ userId, event })).length;

  it('verifies once of twenty parallel requests with one key split over A and B; a retry on B gets the answer A gave', async () => {
    const { userId, code } = await userWithCode();
    const retryKey = `two-${(next += 1)}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => verify(index % 2 === 0 ? a : b, { userId, code }, retryKey)),
    );
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.valid).toBe(true);
      else expect(answer.status).toBe(409);
    }
    expect(await events(userId, 'code.used')).toBe(1);
    expect(await events(userId, 'code.verify_failed')).toBe(0);

    const other = await userWithCode();
    const otherKey = `two-${(next += 1)}`;
    expect(await verify(a, { userId: other.userId, code: other.code }, otherKey)).toEqual({
      status: 200,
      valid: true,
    });
    expect(await verify(b, { userId: other.userId, code: other.code }, otherKey)).toEqual({
      status: 200,
      valid: true,
    });
    expect(await verify(b, { userId: other.userId, code: 'WRONGWRONG' }, otherKey)).toMatchObject({
      status: 422,
    });
    expect(await events(other.userId, 'code.used')).toBe(1);
    expect(await events(other.userId, 'code.verify_failed')).toBe(0);
  });
});
