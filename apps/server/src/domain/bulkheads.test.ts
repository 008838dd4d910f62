import { ErrorNumber, usernameOrThrow } from '@dea/contract';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { createServiceKey } from './codes/service-keys.js';
import { Bulkhead, RequestTurns, storeInLane } from './bulkheads.js';
import { appTest, storeTest } from '../testing/fixtures.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

interface Answer {
  status: number;
  error: number;
  retryAfter: string | null;
}

/** A sign-in over HTTP, as the login page sends it: a made-up name. */
async function signIn(base: string, username: string): Promise<Answer> {
  const response = await fetch(`${base}/login/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'guess' }),
  });
  const { error } = (await response.json()) as { error: number };
  return { status: response.status, error, retryAfter: response.headers.get('retry-after') };
}

/** A code checked by /validate/check, as a second-factor plugin does; its result.value. */
async function validate(base: string, key: string, user: string, pass: string): Promise<[number, unknown]> {
  const response = await fetch(`${base}/validate/check`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user, pass }).toString(),
  });
  const body = (await response.json()) as { result: { value?: boolean } };
  return [response.status, body.result.value];
}

async function verifier(t: TestApp): Promise<{ key: string; user: string; code: string }> {
  const { key } = await createServiceKey(
    t.services.store,
    t.services.keys.serviceKey,
    'vpn',
    ['verify'],
    t.clock.now(),
  );
  const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
  return { key, user: user.username, code: await t.codeOnScreen(user) };
}

describe.each(STORE_KINDS)('sign-in bulkheads on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'answers the sign-ins beyond DEA_SIGNIN_MAX_IN_FLIGHT at once with error 140 and Retry-After, while a verification passes',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_IN_FLIGHT: '4', DEA_SIGNIN_DB_CONNECTIONS: '1' });
      const base = await listening(t);
      const check = await verifier(t);
      const bulkheads = t.services.signInBulkheads;
      // Sign-in's one store place is taken until the test lets go: the admitted sign-ins wait in it.
      let release = (): void => undefined;
      const held = bulkheads.storeLane.run(() => new Promise<void>((resolve) => (release = resolve)));

      const answered: Answer[] = [];
      const burst = Array.from({ length: 12 }, (_, index) =>
        signIn(base, `made-up-${index}`).then((answer) => {
          answered.push(answer);
          return answer;
        }),
      );
      await expect.poll(() => answered.length).toBe(8);
      expect(bulkheads.load.signIns).toBe(4);
      expect(answered).toEqual(
        Array.from({ length: 8 }, () => ({
          status: 200,
          error: ErrorNumber.tooManyRequests,
          retryAfter: '1',
        })),
      );
      // Verification has its own connections and threads: it is answered while sign-in is stuck.
      expect(await validate(base, check.key, check.user, check.code)).toEqual([200, true]);

      release();
      await held;
      const all = await Promise.all(burst);
      expect(all.filter((answer) => answer.error === ErrorNumber.tooManyRequests)).toHaveLength(8);
      expect(all.filter((answer) => answer.error === ErrorNumber.notPermitted)).toHaveLength(4);
      expect(bulkheads.load).toEqual({ signIns: 0, storeCalls: { running: 0, waiting: 0 } });
      // The next sign-in is admitted again.
      expect((await signIn(base, 'made-up-after')).error).toBe(ErrorNumber.notPermitted);
    },
  );

  appTest(
    'counts each request in flight until its answer is sent or its client goes, for background work to wait for',
    async ({ startApp, expect }) => {
      // Sign-in's one store place, held below: the sign-ins wait in flight until the test lets go.
      const t = await startApp({ DEA_SIGNIN_DB_CONNECTIONS: '1' });
      const base = await listening(t);
      const turns = t.services.requestTurns;
      let release = (): void => undefined;
      const held = t.services.signInBulkheads.storeLane.run(
        () => new Promise<void>((resolve) => (release = resolve)),
      );
      const gone = new AbortController();
      const abandoned = fetch(`${base}/login/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'made-up', password: 'a password' }),
        signal: gone.signal,
      }).catch(() => 'gone');
      const answered = signIn(base, 'made-up-too');
      await expect.poll(() => turns.requests).toBe(2);
      const turn = turns.turn(60_000);
      gone.abort();
      expect(await abandoned).toBe('gone');
      await expect.poll(() => turns.requests).toBe(1);
      release();
      await held;
      await answered;
      await turn;
      await expect.poll(() => turns.requests).toBe(0);
    },
  );
});

describe.each(STORE_KINDS)('sign-in store waits on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'answers 503 with Retry-After when a sign-in waits longer than DEA_DB_CONNECT_TIMEOUT_MS for a store place',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_SIGNIN_DB_CONNECTIONS: '1', DEA_DB_CONNECT_TIMEOUT_MS: '500' });
      const base = await listening(t);
      let release = (): void => undefined;
      const held = t.services.signInBulkheads.storeLane.run(
        () => new Promise<void>((resolve) => (release = resolve)),
      );
      try {
        expect(await signIn(base, 'made-up')).toMatchObject({ status: 503, retryAfter: expect.any(String) });
        expect(t.services.signInBulkheads.load).toEqual({
          signIns: 0,
          storeCalls: { running: 1, waiting: 0 },
        });
      } finally {
        release();
        await held;
      }
      expect((await signIn(base, 'made-up')).error).toBe(ErrorNumber.notPermitted);
    },
  );
});

describe.each(STORE_KINDS)('the sign-in store lane on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'lets work already waiting for the event loop (a verification request) go before each store call',
    async ({ testStore, expect }) => {
      const store = storeInLane(testStore.store, new Bulkhead(1));
      const order: string[] = [];
      setImmediate(() => order.push('waiting work'));
      // On the embedded store the statement runs on this thread: without the turn it would go first.
      await store.users.findByUsername(usernameOrThrow('nobody'));
      order.push('store call');
      expect(order).toEqual(['waiting work', 'store call']);
    },
  );
});

describe('sign-in bulkheads on postgres', () => {
  appTest.override('storeKind', 'postgres');

  appTest(
    'leaves verification a connection while a burst of sign-ins waits on a lock with a small pool',
    async ({ startApp, expect }) => {
      const t = await startApp({
        DEA_DB_POOL_SIZE: '3',
        // Long enough that the sign-ins waiting for one of sign-in's places do not give up meanwhile.
        DEA_DB_CONNECT_TIMEOUT_MS: '30000',
        DEA_DB_LOCK_TIMEOUT_MS: '60000',
        DEA_DB_STATEMENT_TIMEOUT_MS: '60000',
      });
      const base = await listening(t);
      const check = await verifier(t);
      // Another session holds the address's row of the sign-in limits: every sign-in from this
      // address waits on it in its transaction, holding a connection of the pool.
      const holder = new pg.Client({ connectionString: t.testStore.databaseUrl });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(
          "insert into signin_failures (subject, failures, last_failure_at) values ('address:127.0.0.1', 0, 0) on conflict do nothing",
        );
        await holder.query("select * from signin_failures where subject = 'address:127.0.0.1' for update");
        const burst = Array.from({ length: 12 }, (_, index) => signIn(base, `made-up-${index}`));
        // The holder reads the activity inside its transaction, where PostgreSQL keeps the first
        // read's snapshot until the transaction ends: each read clears it, or a first read taken
        // before the second sign-in waited would be answered for good.
        const lockWaiters = async () => {
          await holder.query('select pg_stat_clear_snapshot()');
          const { rows } = await holder.query<{ count: string }>(
            "select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          return Number(rows[0]?.count);
        };
        // Sign-in holds its share of the pool (2 of 3), every connection of it waiting on the lock.
        // Under load the second sign-in may take more than vitest's default second to get there:
        // the deadline is a safety net, the wait ends as soon as both wait.
        await expect.poll(lockWaiters, { timeout: 30_000 }).toBe(2);
        await expect
          .poll(() => t.services.signInBulkheads.load.storeCalls, { timeout: 30_000 })
          .toEqual({ running: 2, waiting: 10 });

        expect(await validate(base, check.key, check.user, check.code)).toEqual([200, true]);

        await holder.query('rollback');
        const answers = await Promise.all(burst);
        expect(answers.map((answer) => answer.error)).toEqual(
          Array.from({ length: 12 }, () => ErrorNumber.notPermitted),
        );
      } finally {
        await holder.end();
      }
    },
    // Its waits have deadlines of 30 s each, safety nets only: the test's own is above their sum.
    90_000,
  );
});

describe('background work in turns with the requests in flight', () => {
  const settled = async (promise: Promise<unknown>) => {
    let done = false;
    void promise.then(() => (done = true));
    // The event loop's other callbacks first: a turn never comes sooner.
    for (let round = 0; round < 3; round += 1) await new Promise((resolve) => setImmediate(resolve));
    return done;
  };

  it('gives the turn at once when no request is in flight', async () => {
    const turns = new RequestTurns();
    expect(await settled(turns.turn(50))).toBe(true);
  });

  it('waits for the requests in flight to end, each ended once', async () => {
    const turns = new RequestTurns();
    const first = turns.begin();
    const second = turns.begin();
    const turn = turns.turn(60_000);
    expect(await settled(turn)).toBe(false);
    first();
    first();
    expect(turns.requests).toBe(1);
    expect(await settled(turn)).toBe(false);
    second();
    expect(await settled(turn)).toBe(true);
  });

  it('waits no longer than its last step took, nor than 250 ms, while requests keep coming', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const turns = new RequestTurns();
      turns.begin();
      const short = turns.turn(40);
      expect(await settled(short)).toBe(false);
      vi.advanceTimersByTime(39);
      expect(await settled(short)).toBe(false);
      vi.advanceTimersByTime(1);
      expect(await settled(short)).toBe(true);
      const long = turns.turn(5_000);
      await settled(long);
      vi.advanceTimersByTime(249);
      expect(await settled(long)).toBe(false);
      vi.advanceTimersByTime(1);
      expect(await settled(long)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
