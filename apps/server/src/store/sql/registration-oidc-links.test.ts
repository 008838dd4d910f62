import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { Store } from '../store.js';

const T0 = Date.UTC(2026, 11, 6, 9, 0, 0);
const ISSUER = 'https://login.example.com/realms/staff';

async function addUser(store: Store): Promise<string> {
  const id = newId();
  await store.users.create({
    id,
    username: usernameOrThrow(`linked-${Math.random().toString(36).slice(2, 10)}`),
    passwordHash: 'hash',
    fullName: 'Lee',
    locale: 'en',
    createdAt: T0,
  });
  return id;
}

describe.each(STORE_KINDS)("the registration's links to the OpenID provider, on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'one subject a person at each issuer and one person a subject, kept once of links made at once; gone with the person',
    async ({ testStore: { store } }) => {
      const lee = await addUser(store);
      const kim = await addUser(store);
      const link = (userId: string, subject: string, issuer = ISSUER) =>
        store.registrationOidcLinks.link({ issuer, subject, userId, linkedAt: T0 });

      // Two subjects for one person at once (two accounts of the provider): one link is kept.
      const made = await Promise.all([link(lee, 'sub-a'), link(lee, 'sub-b'), link(lee, 'sub-c')]);
      expect(made.filter(Boolean)).toHaveLength(1);
      const kept = await store.registrationOidcLinks.subjectOf(lee, ISSUER);
      expect(['sub-a', 'sub-b', 'sub-c']).toContain(kept);
      expect(await store.registrationOidcLinks.userOf(ISSUER, kept!)).toBe(lee);

      // A linked subject is no one else's; another issuer is another link.
      expect(await link(kim, kept!)).toBe(false);
      expect(await store.registrationOidcLinks.subjectOf(kim, ISSUER)).toBeUndefined();
      expect(await link(lee, kept!)).toBe(false);
      expect(await link(lee, kept!, 'https://other.example.com')).toBe(true);

      // Subjects are compared exactly.
      expect(await store.registrationOidcLinks.userOf(ISSUER, kept!.toUpperCase())).toBeUndefined();

      expect(await store.registrationOidcLinks.unlinkAll(lee)).toBe(2);
      expect(await store.registrationOidcLinks.subjectOf(lee, ISSUER)).toBeUndefined();
      expect(await link(kim, kept!)).toBe(true);
      await store.users.remove(kim);
      expect(await store.registrationOidcLinks.userOf(ISSUER, kept!)).toBeUndefined();
    },
  );
});
