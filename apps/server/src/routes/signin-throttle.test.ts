import { describe, expect } from 'vitest';
import { purgeAsScheduled } from '../bootstrap.js';
import { hashPassword } from '../crypto/password-hash.js';
import { leavingClient } from '../testing/leaving-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { appTest } from '../testing/fixtures.js';
import { checkedPasswords, signInAttempt } from '../testing/sign-in-attempts.js';

const MINUTE = 60_000;
const ATTACKER = '203.0.113.9';
const OWNER = '198.51.100.20';

describe.each(DOOR_STORE_KINDS)('sign-in limits on %s', (kind) => {
  appTest.override('storeKind', kind);

  const attempt = signInAttempt;

  appTest(
    'answers a lock with error 140, the wait in words and in Retry-After, and no cookie, even for the right password',
    async ({ startApp }) => {
      const t = await startApp({ DEA_SIGNIN_MAX_FAILURES: '3', DEA_SIGNIN_LOCK_MINUTES: '10' });
      const user = await t.createUser();
      const answers = [];
      for (let index = 0; index < 4; index += 1)
        answers.push((await attempt(t, user.username, 'wrong')).json());
      expect(answers[0]).toEqual({
        error: 3,
        message: 'The user name or password is incorrect.',
        result: null,
      });
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      expect(answers[3]).toEqual({
        error: 140,
        message: 'Too many failed attempts. Please try again in about 10 minutes.',
        result: { retryAfterSeconds: 600 },
      });
      const locked = await attempt(t, user.username, user.password);
      expect(locked.json()).toMatchObject({ error: 140 });
      expect(locked.headers['retry-after']).toBe('600');
      expect(locked.cookies).toHaveLength(0);
    },
  );

  appTest.for(['127.0.0.1', '1'])(
    'behind a trusted proxy (DEA_TRUST_PROXY=%s), counts the address the proxy saw, not one the client claims',
    async (trusted, { startApp }) => {
      const t = await startApp({ DEA_TRUST_PROXY: trusted, DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '4' });
      const user = await t.createUser();
      const viaProxy = (username: string, password: string, claimed: string) =>
        t.app.inject({
          method: 'POST',
          url: '/login/api/session',
          payload: { username, password },
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': `${claimed}, ${ATTACKER}` },
        });
      // Four names fail, each claiming another address: the proxy saw one, which is now slowed down.
      for (let index = 0; index < 4; index += 1) await viaProxy(`n-${index}`, 'x', `10.9.${index}.1`);
      // Had the claimed addresses counted, these names would not have failed from them and be checked.
      await Promise.all(
        Array.from({ length: 20 }, (_, index) => viaProxy(`n-${index % 4}`, 'x', `10.8.${index}.1`)),
      );
      expect(await checkedPasswords(t)).toBe(4);
      // The user has not failed from that address: signed in, whatever it claims.
      expect((await viaProxy(user.username, user.password, OWNER)).json()).toMatchObject({ error: 0 });
      const addresses = new Set(
        (await t.services.store.audit.list({ limit: 100 })).map((entry) => entry.clientAddress),
      );
      expect([...addresses]).toEqual([ATTACKER]);
    },
  );

  appTest(
    'purges attempts older than the window, but never a lock that still holds',
    async ({ startApp }) => {
      const t = await startApp({
        DEA_SIGNIN_MAX_FAILURES: '2',
        DEA_SIGNIN_WINDOW_MINUTES: '5',
        DEA_SIGNIN_LOCK_MINUTES: '30',
      });
      await Promise.all(Array.from({ length: 3 }, () => attempt(t, 'locked-one', 'x', ATTACKER)));
      await attempt(t, 'tried-once', 'x', OWNER);
      t.clock.advance(6 * MINUTE);
      const outcome = await purgeAsScheduled(t.services, 'test');
      // Of six subjects (user-address, user and address of each), only locked-one's pair is locked.
      expect(outcome).toMatchObject({ ran: true, removed: { signinFailures: 5 } });
      expect((await attempt(t, 'locked-one', 'x', ATTACKER)).json()).toMatchObject({ error: 140 });
    },
  );

  appTest(
    'gives up the work of a client that left while its attempt waited for a hash: no hash, nothing counted, no session',
    async ({ startApp }) => {
      const t = await startApp({ DEA_PASSWORD_HASH_CONCURRENCY: '1', DEA_PASSWORD_HASH_QUEUE: '10' });
      const user = await t.createUser();
      // A slow hash holds the only slot while the user's attempt waits; its client leaves meanwhile.
      const slow = await t.createUser();
      await t.services.store.users.replacePasswordHash(
        slow.id,
        (await t.services.store.users.findById(slow.id))!.passwordHash,
        await hashPassword(slow.password, 17),
      );
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const signIn = (username: string, password: string) =>
        fetch(`${base}/login/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username, password }),
        });
      const hashes = (): { running: number; waiting: number } => t.services.hashQueue.load;
      const holding = signIn(slow.username, 'wrong');
      await expect.poll(hashes, { interval: 1 }).toEqual({ running: 1, waiting: 0 });
      const leaving = leavingClient(`${base}/login/api/session`, {
        username: user.username,
        password: user.password,
      });
      // Its attempt waits in the queue behind the slow hash (about 0.3 s, longer on a loaded machine).
      await expect.poll(hashes, { interval: 1 }).toEqual({ running: 1, waiting: 1 });
      leaving.leave();
      expect(await leaving.left).toBe('left');
      await holding;
      await expect
        .poll(
          async () =>
            (await t.services.store.audit.list({ userId: user.id, event: 'signin.abandoned' })).length,
        )
        .toBe(1);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'signin.abandoned' })).toMatchObject(
        [{ details: { stage: 'before-check' } }],
      );
      // Nothing was checked, nothing counted, no session: the user signs in at once.
      expect((await t.services.store.users.findById(user.id))?.lastLoginAt).toBeNull();
      expect(await (await signIn(user.username, user.password)).json()).toMatchObject({ error: 0 });
    },
  );
});
