import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { recordPostgresQueries, recordStatements } from '../../testing/recorded-sql.js';
import { storeCase, T0 } from './store-fixture.js';

/** Service keys. */
export function serviceKeysSuite(): void {
  describe.concurrent('service keys', () => {
    storeCase('creates, finds and lists keys with their scopes', async ({ store, expect }) => {
      const reader = {
        id: newId(),
        name: 'reader',
        keyHash: 'hash-r',
        scopes: ['users:read', 'audit:read'],
        createdAt: T0,
        revokedAt: null,
        hashedAt: T0,
      };
      const admin = {
        id: newId(),
        name: 'admin',
        keyHash: 'hash-a',
        scopes: ['codes:issue'],
        createdAt: T0 + 1,
        revokedAt: null,
        hashedAt: T0 + 1,
      };
      const none = {
        id: newId(),
        name: 'none',
        keyHash: 'hash-n',
        scopes: [],
        createdAt: T0 + 2,
        revokedAt: null,
        hashedAt: T0 + 2,
      };
      for (const key of [reader, admin, none]) await store.serviceKeys.create(key);

      const found = await store.serviceKeys.findById(reader.id);
      expect(found).toEqual(reader);
      expect(typeof found?.createdAt).toBe('number');
      expect(await store.serviceKeys.findById(none.id)).toEqual(none);
      expect(await store.serviceKeys.findById(newId())).toBeUndefined();
      expect(await store.serviceKeys.list()).toEqual([admin, none, reader]);
      await expect(store.serviceKeys.create({ ...admin, id: newId() })).rejects.toThrow();
    });

    storeCase(
      'replaces a hash only when it is still the one read (a re-hash after a rotation)',
      async ({ store, expect }) => {
        const key = {
          id: newId(),
          name: 'rehashed',
          keyHash: 'old-hash',
          scopes: ['verify'],
          createdAt: T0,
          revokedAt: null,
          hashedAt: T0,
        };
        await store.serviceKeys.create(key);
        await store.serviceKeys.rehash(key.id, 'other-hash', 'lost', T0 + 5);
        expect(await store.serviceKeys.findById(key.id)).toEqual(key);
        await store.serviceKeys.rehash(key.id, 'old-hash', 'new-hash', T0 + 10);
        expect(await store.serviceKeys.findById(key.id)).toEqual({
          ...key,
          keyHash: 'new-hash',
          hashedAt: T0 + 10,
        });
      },
    );

    storeCase('revokes a key once', async ({ store, expect }) => {
      const key = {
        id: newId(),
        name: 'k',
        keyHash: 'h',
        scopes: ['a'],
        createdAt: T0,
        revokedAt: null,
        hashedAt: T0,
      };
      const other = { ...key, id: newId(), name: 'other' };
      await store.serviceKeys.create(key);
      await store.serviceKeys.create(other);
      expect(await store.serviceKeys.revoke(key.id, T0 + 10)).toBe(true);
      const revoked = await store.serviceKeys.findById(key.id);
      expect(revoked).toEqual({ ...key, revokedAt: T0 + 10 });
      expect(typeof revoked?.revokedAt).toBe('number');
      expect(await store.serviceKeys.revoke(key.id, T0 + 20)).toBe(false);
      expect((await store.serviceKeys.findById(key.id))?.revokedAt).toBe(T0 + 10);
      expect(await store.serviceKeys.revoke(newId(), T0)).toBe(false);
      expect((await store.serviceKeys.findById(other.id))?.revokedAt).toBeNull();
    });

    storeCase(
      'reads a key with the user a verification names, by id or by name, the reads of one turn in one statement on PostgreSQL',
      async (fixture) => {
        const { store, expect } = fixture;
        const key = {
          id: newId(),
          name: `with-user-${newId()}`,
          keyHash: 'hash-w',
          scopes: ['verify'],
          createdAt: T0,
          revokedAt: T0 + 3,
          hashedAt: T0 + 1,
        };
        await store.serviceKeys.create(key);
        const added = await fixture.addUser({ fullName: 'Read Together', locale: 'de' });
        const user = await store.users.findById(added.id);
        expect(user).toBeDefined();
        expect(await store.serviceKeys.findWithUser(key.id, { id: added.id })).toEqual({
          serviceKey: key,
          user,
        });
        expect(await store.serviceKeys.findWithUser(key.id, { username: added.username })).toEqual({
          serviceKey: key,
          user,
        });
        // Both in one statement on either store (other cases run beside: told by the tables it reads).
        const recorded = recordStatements(store.kind);
        let withUser: Awaited<ReturnType<typeof store.serviceKeys.findWithUser>>;
        try {
          withUser = await store.serviceKeys.findWithUser(key.id, { id: added.id });
        } finally {
          recorded.stop();
        }
        expect(
          recorded.texts().filter((text) => /\bservice_keys\b/.test(text) && /\busers\b/.test(text)),
        ).toHaveLength(1);
        expect(typeof withUser.serviceKey?.revokedAt).toBe('number');
        expect(typeof withUser.user?.createdAt).toBe('number');
        expect(withUser.user?.disabled).toBe(false);
        // Each part is found or not on its own.
        expect(await store.serviceKeys.findWithUser(newId(), { id: added.id })).toEqual({
          serviceKey: undefined,
          user,
        });
        expect(await store.serviceKeys.findWithUser(key.id, { id: newId() })).toEqual({
          serviceKey: key,
          user: undefined,
        });
        expect(
          await store.serviceKeys.findWithUser(key.id, { username: usernameOrThrow(`nobody-${newId()}`) }),
        ).toEqual({ serviceKey: key, user: undefined });
        await store.users.update(added.id, { disabled: true });
        expect((await store.serviceKeys.findWithUser(key.id, { id: added.id })).user?.disabled).toBe(true);

        // Reads of one turn, each answered its own, in one statement on PostgreSQL.
        const others = await Promise.all(Array.from({ length: 4 }, () => fixture.addUser()));
        const recording = recordPostgresQueries();
        let reads: Awaited<ReturnType<typeof store.serviceKeys.findWithUser>>[];
        try {
          reads = await Promise.all(
            others.map((other, index) =>
              store.serviceKeys.findWithUser(
                index % 2 === 0 ? key.id : newId(),
                index < 2 ? { id: other.id } : { username: other.username },
              ),
            ),
          );
        } finally {
          recording.stop();
        }
        expect(reads.map((read) => [read.serviceKey?.id, read.user?.id])).toEqual(
          others.map((other, index) => [index % 2 === 0 ? key.id : undefined, other.id]),
        );
        if (store.kind === 'postgres') {
          const mine = recording.queries.filter(({ values }) =>
            others.some(
              (other) =>
                JSON.stringify(values ?? null).includes(other.id) ||
                JSON.stringify(values ?? null).includes(other.username),
            ),
          );
          expect(mine).toHaveLength(1);
        }
      },
    );
  });
}
