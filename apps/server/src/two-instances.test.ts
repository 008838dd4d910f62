import { XSRF_HEADER_NAME } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from './crypto/ids.js';
import { createServiceKey } from './domain/codes/service-keys.js';
import { purgeAsScheduled } from './bootstrap.js';
import { bodies } from './testing/api-bodies.js';
import {
  createUserWithCodes,
  signInOver,
  startTwoInstances,
  type Instance,
  type Instances,
} from './testing/instances.js';

/** Two server instances, as two processes behind a load balancer would be: one PostgreSQL, one secret. */
describe('two instances on one PostgreSQL', () => {
  let instances: Instances;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    instances = await startTwoInstances();
    ({ a, b } = instances);
  });
  afterAll(() => instances.close());

  const createUser = (maxUnusedCodes: number) => createUserWithCodes(a.services.store, maxUnusedCodes);

  const post = (instance: Instance, path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${instance.base}/dea/api/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

  it('lets a session signed in on A be used on B, token included, and a logout on B end it on A', async () => {
    const user = await createUser(5);
    const headers = await signInOver(a, user.username);
    const onB = await post(b, 'userinfo', {}, headers);
    expect(onB.status).toBe(200);
    expect(await onB.json()).toMatchObject({ userId: user.id, fullName: 'Two Instances' });
    const created = await post(b, 'tempPass/create', bodies.create(user.id), headers);
    expect(await created.json()).toMatchObject({ error: 0 });
    const withoutToken = await post(b, 'userinfo', {}, { ...headers, [XSRF_HEADER_NAME]: 'forged' });
    expect(withoutToken.status).toBe(403);

    const logout = await fetch(`${b.base}/dea/logout`, {
      headers: { cookie: headers.cookie ?? '', 'sec-fetch-site': 'same-origin' },
      redirect: 'manual',
    });
    expect(logout.status).toBe(302);
    expect((await post(a, 'userinfo', {}, headers)).status).toBe(401);
  });

  it('holds the code limit across both: of 20 concurrent creates split over A and B exactly 5 succeed', async () => {
    const user = await createUser(5);
    const headers = await signInOver(a, user.username);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const response = await post(
          index % 2 === 0 ? a : b,
          'tempPass/create',
          bodies.create(user.id),
          headers,
        );
        expect(response.status).toBe(200);
        return (await response.json()) as { error: number };
      }),
    );
    expect(answers.filter((answer) => answer.error === 0)).toHaveLength(5);
    expect(answers.filter((answer) => answer.error === 148)).toHaveLength(15);
    expect(await b.services.store.codes.countActive(user.id, Date.now())).toBe(5);
  });

  it('lets one of two verifications of one code, at the same instant on A and B, succeed', async () => {
    const { key } = await createServiceKey(
      a.services.store,
      a.services.keys.serviceKey,
      `k-${newId()}`,
      ['verify'],
      Date.now(),
    );
    const user = await createUser(5);
    const headers = await signInOver(b, user.username);
    const created = (await (await post(a, 'tempPass/create', bodies.create(user.id), headers)).json()) as {
      result: { rows: { password: string }[] };
    };
    const code = created.result.rows[0]?.password ?? '';
    const verifyHeaders = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const answers = await Promise.all(
      [a, b, a, b].map(
        async (instance) =>
          (
            (await (
              await post(instance, 'tempPass/verify', { userId: user.id, code }, verifyHeaders)
            ).json()) as {
              result: { valid: boolean };
            }
          ).result.valid,
      ),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('slows one address down for the names that failed from it, never for a user who has not, across A and B', async () => {
    const colleague = await createUser(5);
    const signIn = async (instance: Instance, username: string, password: string): Promise<number> => {
      const response = await fetch(`${instance.base}/login/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      return ((await response.json()) as { error: number }).error;
    };
    const names = Array.from({ length: 25 }, (_, index) => `typo-${newId()}-${index}`);
    // More first failures from this one address than DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS (20), at once.
    const first = await Promise.all(names.map((name, index) => signIn(index % 2 ? a : b, name, 'wrong')));
    expect(first.every((error) => error === 3)).toBe(true);
    const repeats = await Promise.all(
      Array.from({ length: 100 }, (_, index) => signIn(index % 2 ? a : b, names[index % 25] ?? '', 'wrong')),
    );
    expect(repeats.every((error) => error === 140)).toBe(true);
    expect(await signIn(b, colleague.username, 'pw')).toBe(0);
    expect(await signIn(a, colleague.username, 'pw')).toBe(0);
  });

  it('checks at most DEA_SIGNIN_MAX_FAILURES passwords of 200 parallel guesses split over A and B', async () => {
    const user = await createUser(5);
    const guesses = Array.from({ length: 200 }, (_, index) => (index === 199 ? 'pw' : `guess-${index}`));
    const answers = await Promise.all(
      guesses.map(async (password, index) => {
        const response = await fetch(`${(index % 2 === 0 ? a : b).base}/login/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: user.username, password }),
        });
        return ((await response.json()) as { error: number }).error;
      }),
    );
    const checked = (await a.services.store.audit.list({ userId: user.id, limit: 1000 })).filter(
      (entry) => entry.event === 'signin.failed' || entry.event === 'signin.succeeded',
    );
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(answers.filter((error) => error === 140)).toHaveLength(200 - checked.length);
  });

  it('runs the retention purge on one instance at a time, removing each row once', async () => {
    const { store } = a.services;
    const longAgo = Date.now() - 400 * 86_400_000;
    for (let index = 0; index < 50; index += 1) await store.audit.append({ event: 'system.start' }, longAgo);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        purgeAsScheduled((index % 2 === 0 ? a : b).services, `instance-${index}`),
      ),
    );
    const ran = outcomes.filter((outcome) => outcome.ran);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    const removed = ran.reduce((sum, outcome) => sum + (outcome.ran ? (outcome.removed.audit ?? 0) : 0), 0);
    expect(removed).toBeGreaterThanOrEqual(50);
    expect(await b.services.store.audit.list({ until: longAgo + 1, limit: 10 })).toEqual([]);
    expect(await store.leases.find('purge')).toBeUndefined();
  });
});
