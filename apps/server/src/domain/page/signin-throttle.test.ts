import { describe } from 'vitest';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { fullwidth, spellingsOf } from '../../testing/spellings.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { limitKeyOf, type SigninThrottleSettings, SigninThrottle } from './signin-throttle.js';

const T0 = Date.UTC(2026, 11, 7, 9);
const MINUTE = 60_000;
const KEY = Buffer.alloc(32, 3);
const ATTACKER = '203.0.113.9';
const OWNER = '198.51.100.20';
const SETTINGS: SigninThrottleSettings = {
  userLockAfter: 3,
  addressLockAfter: 5,
  windowMs: 15 * MINUTE,
  lockMs: 10 * MINUTE,
  slowdownMs: 1000,
  slowdownMaxMs: 4000,
};

/** The throttle over the test's store; `tries` admits a name n times and answers what the last was told. */
function throttleOf(store: Store, settings: Partial<SigninThrottleSettings> = {}) {
  const throttle = new SigninThrottle(store, { ...SETTINGS, ...settings }, KEY);
  async function tries(times: number, name: string, address: string, at = T0) {
    let last = await throttle.admit(name, address, at);
    for (let index = 1; index < times; index += 1) last = await throttle.admit(name, address, at);
    return last;
  }
  /** The same name from `count` addresses of 192.0.2.0/24, once each. */
  async function fromMany(count: number, name: string, at: number) {
    const answers = [];
    for (let index = 1; index <= count; index += 1)
      answers.push(await throttle.admit(name, `192.0.2.${index}`, at));
    return answers;
  }
  return { throttle, tries, fromMany };
}

describe.each(STORE_KINDS)('the sign-in limits on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'one name from one address gets userLockAfter checks, the next is refused for lockMs, and tries again once it has passed',
    async ({ testStore: { store }, expect }) => {
      const { throttle, tries } = throttleOf(store);
      expect(await tries(3, 'alice', ATTACKER)).toEqual({ allowed: true });
      expect(await throttle.admit('alice', ATTACKER, T0 + 1)).toEqual({
        allowed: false,
        reason: 'user-address',
        retryAfterMs: 10 * MINUTE - 1,
      });
      expect((await throttle.admit('alice', ATTACKER, T0 + 10 * MINUTE - 1)).allowed).toBe(false);
      expect(await throttle.admit('alice', ATTACKER, T0 + 10 * MINUTE)).toEqual({ allowed: true });
    },
  );

  storeTest.concurrent(
    'a refused attempt counts nothing: however many, the lock ends when it said',
    async ({ testStore: { store }, expect }) => {
      const { throttle, tries } = throttleOf(store);
      await tries(3, 'alice', ATTACKER);
      for (let index = 0; index < 20; index += 1) await throttle.admit('alice', ATTACKER, T0 + index * 1000);
      expect(await throttle.admit('alice', ATTACKER, T0 + 10 * MINUTE)).toEqual({ allowed: true });
    },
  );

  storeTest.concurrent(
    'attempts are forgotten after a window without any: the count starts again',
    async ({ testStore: { store }, expect }) => {
      const { throttle, tries } = throttleOf(store);
      await tries(2, 'bob', ATTACKER);
      // Within the window of the last attempt, the third locks; after it, the count starts at one.
      expect(await throttle.admit('bob', ATTACKER, T0 + 15 * MINUTE + 1)).toEqual({ allowed: true });
      expect(await tries(2, 'bob', ATTACKER, T0 + 15 * MINUTE + 1)).toEqual({ allowed: true });
      expect((await throttle.admit('bob', ATTACKER, T0 + 15 * MINUTE + 2)).allowed).toBe(false);
    },
  );

  storeTest.concurrent(
    'without a slow-down, the owner on a clean address signs in while the attacker’s address is locked out of the name',
    async ({ testStore: { store }, expect }) => {
      const { throttle, tries } = throttleOf(store, { slowdownMs: 0 });
      await tries(3, 'carol', ATTACKER);
      expect(await tries(20, 'carol', ATTACKER)).toMatchObject({ allowed: false, reason: 'user-address' });
      expect(await throttle.admit('carol', OWNER, T0)).toEqual({ allowed: true });
    },
  );

  storeTest.concurrent(
    'a name guessed from many addresses gets one check per slow-down delay, doubling up to slowdownMaxMs',
    async ({ testStore: { store }, expect }) => {
      const { throttle, fromMany } = throttleOf(store);
      const first = await fromMany(10, 'dave', T0);
      expect(first.filter((answer) => answer.allowed)).toHaveLength(3);
      expect(first[3]).toEqual({ allowed: false, reason: 'user', retryAfterMs: 1000 });
      // Each further attempt doubles the delay: 2 s, 4 s, then no more than 4 s.
      const delays = [];
      let at = T0 + 1000;
      for (let step = 0; step < 4; step += 1) {
        const address = `198.51.100.${step + 1}`;
        expect(await throttle.admit('dave', address, at - 1), String(step)).toMatchObject({ allowed: false });
        expect(await throttle.admit('dave', address, at), String(step)).toEqual({ allowed: true });
        const refused = await throttle.admit('dave', address, at);
        delays.push(refused.allowed ? 0 : refused.retryAfterMs);
        at += delays.at(-1) ?? 0;
      }
      expect(delays).toEqual([2000, 4000, 4000, 4000]);
    },
  );

  storeTest.concurrent(
    'past addressLockAfter attempts from one address, a name that failed from it is slowed down while one that has not passes',
    async ({ testStore: { store }, expect }) => {
      const { throttle } = throttleOf(store);
      for (let index = 0; index < 5; index += 1)
        expect((await throttle.admit(`typo-${index}`, ATTACKER, T0)).allowed).toBe(true);
      expect(await throttle.admit('typo-0', ATTACKER, T0)).toEqual({
        allowed: false,
        reason: 'address',
        retryAfterMs: 1000,
      });
      expect(await throttle.admit('colleague', ATTACKER, T0)).toEqual({ allowed: true });
      // A name that failed elsewhere only is as clean here.
      await throttle.admit('roaming', OWNER, T0);
      expect(await throttle.admit('roaming', ATTACKER, T0)).toEqual({ allowed: true });
    },
  );

  storeTest.concurrent(
    'without a slow-down the address waits the whole lock time',
    async ({ testStore: { store }, expect }) => {
      const { throttle } = throttleOf(store, { slowdownMs: 0 });
      for (let index = 0; index < 5; index += 1) await throttle.admit(`typo-${index}`, ATTACKER, T0);
      expect(await throttle.admit('typo-1', ATTACKER, T0)).toEqual({
        allowed: false,
        reason: 'address',
        retryAfterMs: 10 * MINUTE,
      });
    },
  );

  storeTest.concurrent(
    'every spelling of one name shares one count: upper case, fullwidth and spaces around',
    async ({ testStore: { store }, expect }) => {
      const { throttle } = throttleOf(store);
      for (const spelling of ['Erin', fullwidth('ERIN'), '  erin\u3000'])
        expect((await throttle.admit(spelling, ATTACKER, T0)).allowed, spelling).toBe(true);
      expect(await throttle.admit('erin', ATTACKER, T0)).toMatchObject({
        allowed: false,
        reason: 'user-address',
      });
      expect(limitKeyOf(fullwidth('Erin'))).toBe('erin');
      // A name the profile refuses is counted as typed, trimmed.
      expect(limitKeyOf(' \u{1D42E}ser ')).toBe('\u{1D42E}ser');
    },
  );

  storeTest.concurrent(
    'sixty spellings of one name at once from one address: exactly userLockAfter are admitted',
    async ({ testStore: { store }, expect }) => {
      const { throttle } = throttleOf(store);
      const spellings = spellingsOf('Erin.Example', 60);
      expect(new Set(spellings).size).toBe(60);
      const answers = await Promise.all(spellings.map((spelling) => throttle.admit(spelling, ATTACKER, T0)));
      expect(answers.filter((answer) => answer.allowed)).toHaveLength(3);
      expect(await store.signinFailures.find(`address:${ATTACKER}`)).toMatchObject({ failures: 3 });
    },
  );

  storeTest.concurrent(
    'names are kept only as keyed hashes, known or not: no subject holds the name typed',
    async ({ testStore: { store }, expect }) => {
      const { throttle } = throttleOf(store);
      await throttle.admit('my-secret-Passw0rd', ATTACKER, T0);
      for (const subject of [
        'user:my-secret-passw0rd',
        `user-address:my-secret-passw0rd:${ATTACKER}`,
        'my-secret-passw0rd',
      ])
        expect(await store.signinFailures.find(subject), subject).toBeUndefined();
      const hashed = keyedHash(KEY, 'my-secret-passw0rd');
      expect(await store.signinFailures.find(`user:${hashed}`)).toMatchObject({ failures: 1 });
      expect(await store.signinFailures.find(`address:${ATTACKER}`)).toMatchObject({ failures: 1 });
    },
  );

  storeTest.concurrent(
    "a right password clears the name's counts and gives the address back this attempt",
    async ({ testStore: { store }, expect }) => {
      const { throttle, tries } = throttleOf(store);
      await tries(2, 'frank', ATTACKER);
      await throttle.admit('frank', ATTACKER, T0);
      await throttle.succeeded('frank', ATTACKER);
      expect(await tries(3, 'frank', ATTACKER)).toEqual({ allowed: true });
      expect((await throttle.admit('frank', ATTACKER, T0)).allowed).toBe(false);
      // Six admitted from the address, one given back; the refused one counted nothing.
      expect(await store.signinFailures.find(`address:${ATTACKER}`)).toMatchObject({ failures: 5 });
    },
  );

  storeTest.concurrent(
    'an attempt whose password was never checked counts nothing, on any limit',
    async ({ testStore: { store }, expect }) => {
      const { throttle, tries } = throttleOf(store);
      await tries(2, 'gina', ATTACKER);
      await throttle.admit('gina', ATTACKER, T0);
      await throttle.notChecked('gina', ATTACKER);
      expect(await throttle.admit('gina', ATTACKER, T0)).toEqual({ allowed: true });
      expect((await throttle.admit('gina', ATTACKER, T0)).allowed).toBe(false);
      expect(await store.signinFailures.find(`address:${ATTACKER}`)).toMatchObject({ failures: 3 });
    },
  );

  storeTest.concurrent(
    'a directory entry is limited as a name is, from one address and from all, and a right password clears it',
    async ({ testStore: { store }, expect }) => {
      const { throttle } = throttleOf(store);
      for (let index = 0; index < 3; index += 1)
        expect((await throttle.admitEntry('entry-1', ATTACKER, T0)).allowed).toBe(true);
      expect(await throttle.admitEntry('entry-1', ATTACKER, T0)).toEqual({
        allowed: false,
        reason: 'entry-address',
        retryAfterMs: 10 * MINUTE,
      });
      expect(await throttle.admitEntry('entry-1', OWNER, T0)).toMatchObject({
        allowed: false,
        reason: 'entry',
      });
      await throttle.succeeded('any-spelling', ATTACKER, 'entry-1');
      expect(await throttle.admitEntry('entry-1', OWNER, T0)).toEqual({ allowed: true });
    },
  );
});
