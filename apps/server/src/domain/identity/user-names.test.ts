import { POLICY_CATEGORY_SELF_SERVICE, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { Groups } from './groups.js';
import {
  consoleAccountNamed,
  serviceKeyWithUserNamed,
  userNamed,
  userNamedWithPolicy,
} from './user-names.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const OPERATOR = { door: 'local', actor: 'cli' } as const;

/** Nina (nina.novak) in a group with a self-service policy, and an integrator's service key. */
async function named(store: Store) {
  const id = newId(T0);
  await store.users.create({
    id,
    username: usernameOrThrow('nina.novak'),
    passwordHash: 'hash',
    fullName: 'Nina Novak',
    locale: 'en',
    createdAt: T0,
  });
  const groups = new Groups(store, () => T0);
  const staff = await groups.create({ name: 'Staff', priority: 0, members: [id] }, OPERATOR);
  await groups.setPolicy(
    staff,
    { category: POLICY_CATEGORY_SELF_SERVICE, options: { enableECode: true }, changes: {} },
    OPERATOR,
    false,
  );
  const keyId = newId(T0);
  await store.serviceKeys.create({
    id: keyId,
    name: 'portal',
    keyHash: 'hash',
    scopes: ['validate'],
    createdAt: T0,
    revokedAt: null,
    hashedAt: T0,
  });
  return { id, keyId };
}

describe.each(STORE_KINDS)('a user named by a door, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a name finds its user however it is spelled; a name the profile refuses names nobody',
    async ({ testStore: { store }, expect }) => {
      const { id } = await named(store);
      for (const spelling of ['nina.novak', 'Nina.Novak', 'NINA.NOVAK'])
        expect((await userNamed(store, spelling))?.id, spelling).toBe(id);
      expect(await userNamed(store, 'nina')).toBeUndefined();
      expect(await userNamed(store, 'nina novak')).toBeUndefined();
      expect(await userNamed(store, '')).toBeUndefined();
    },
  );

  storeTest.concurrent(
    "a name finds its user with their group's policy of the category asked, by the same rule",
    async ({ testStore: { store }, expect }) => {
      const { id } = await named(store);
      expect(await userNamedWithPolicy(store, 'Nina.Novak', POLICY_CATEGORY_SELF_SERVICE)).toMatchObject({
        user: { id },
        policy: { enableECode: true },
      });
      expect((await userNamedWithPolicy(store, 'nina.novak', 'Other Category'))?.policy).toBeUndefined();
      expect(await userNamedWithPolicy(store, 'nina novak', POLICY_CATEGORY_SELF_SERVICE)).toBeUndefined();
    },
  );

  storeTest.concurrent(
    'a service key comes with the user a verification names by id or by name, and alone when it names both, none or a refused name',
    async ({ testStore: { store }, expect }) => {
      const { id, keyId } = await named(store);
      const read = (user: { userId?: string; username?: string }) =>
        serviceKeyWithUserNamed(store, keyId, user);
      expect(await read({ userId: id })).toMatchObject({ serviceKey: { id: keyId }, user: { id } });
      expect(await read({ username: 'NINA.Novak' })).toMatchObject({
        serviceKey: { id: keyId },
        user: { id },
      });
      for (const user of [{ userId: id, username: 'nina.novak' }, {}, { username: 'nina novak' }])
        expect(await read(user), JSON.stringify(user)).toMatchObject({
          serviceKey: { id: keyId },
          user: undefined,
        });
      expect(await serviceKeyWithUserNamed(store, newId(T0), { userId: id })).toMatchObject({
        serviceKey: undefined,
      });
    },
  );

  storeTest.concurrent(
    'a console account is found by its name by the same rule as users',
    async ({ testStore: { store }, expect }) => {
      const id = newId(T0);
      await store.console.createAccount({
        id,
        username: usernameOrThrow('root.admin'),
        displayName: 'Root',
        role: 'admin',
        passwordHash: 'hash',
        createdAt: T0,
      });
      expect((await consoleAccountNamed(store, 'Root.Admin'))?.id).toBe(id);
      expect(await consoleAccountNamed(store, 'root admin')).toBeUndefined();
      expect(await consoleAccountNamed(store, 'root')).toBeUndefined();
    },
  );
});
