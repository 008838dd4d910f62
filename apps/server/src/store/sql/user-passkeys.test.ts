import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { Store, UserPasskey } from '../store.js';

const T0 = Date.UTC(2026, 10, 26, 9, 0, 0);

async function addUser(store: Store): Promise<string> {
  const id = newId();
  await store.users.create({
    id,
    username: usernameOrThrow(`passkeys-${Math.random().toString(36).slice(2, 10)}`),
    passwordHash: 'hash',
    fullName: 'Pat',
    locale: 'en',
    createdAt: T0,
  });
  return id;
}

const passkeyOf = (userId: string, credentialId: string): UserPasskey => ({
  credentialId,
  userId,
  publicKey: 'cHVibGlj',
  counter: 0,
  transports: ['usb'],
  name: 'key',
  createdAt: T0,
  lastUsedAt: null,
});

describe.each(STORE_KINDS)("people's passkeys in the store, on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    "a credential id is kept once, found only as its person's, and goes with them",
    async ({ testStore: { store } }) => {
      const pat = await addUser(store);
      const sam = await addUser(store);
      expect(await store.userPasskeys.add(passkeyOf(pat, 'cred-a'))).toBe(true);
      expect(await store.userPasskeys.add(passkeyOf(sam, 'cred-a'))).toBe(false);
      expect(await store.userPasskeys.findOfUser(sam, 'cred-a')).toBeUndefined();
      expect(await store.userPasskeys.findOfUser(pat, 'cred-a')).toMatchObject({ transports: ['usb'] });
      // A counter that does not move on (a cloned key) is refused; 0 and 0 is an authenticator without one.
      expect(await store.userPasskeys.use(pat, 'cred-a', 0, T0 + 1)).toBe(true);
      expect(await store.userPasskeys.use(sam, 'cred-a', 0, T0 + 1)).toBe(false);
      await store.userPasskeys.add(passkeyOf(pat, 'cred-b'));
      expect(await store.userPasskeys.use(pat, 'cred-b', 0, T0)).toBe(true);
      await store.transaction((tx) => tx.userPasskeys.removeAllOf(sam));
      await store.users.remove(pat);
      expect(await store.userPasskeys.listOfUser(pat)).toEqual([]);
    },
  );

  storeTest(
    'a challenge is taken once, by one of many takers at once, and not after it expired',
    async ({ testStore: { store } }) => {
      const pat = await addUser(store);
      await store.userPasskeys.setChallenge(pat, 'authentication', 'first', T0 + 1000);
      // A newer challenge of the same ceremony replaces the one before; the other ceremony keeps its own.
      await store.userPasskeys.setChallenge(pat, 'authentication', 'second', T0 + 1000);
      await store.userPasskeys.setChallenge(pat, 'registration', 'third', T0 + 1000);
      expect(await store.userPasskeys.takeChallenge(pat, 'authentication', 'first', T0)).toBe(false);
      expect(await store.userPasskeys.takeChallenge(pat, 'registration', 'second', T0)).toBe(false);
      const takes = await Promise.all(
        Array.from({ length: 8 }, () =>
          store.userPasskeys.takeChallenge(pat, 'authentication', 'second', T0),
        ),
      );
      expect(takes.filter(Boolean)).toHaveLength(1);
      expect(await store.userPasskeys.takeChallenge(pat, 'registration', 'third', T0 + 1000)).toBe(false);
    },
  );
});
