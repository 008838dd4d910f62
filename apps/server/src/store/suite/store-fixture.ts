import { usernameOrThrow } from '@dea/contract';
import type { ExpectStatic } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import type { TestStore } from '../../testing/stores.js';
import { openStore } from '../open-store.js';
import type { NewAuditEntry, NewCode, NewUser, Store, User } from '../store.js';

/**
 * What the store suite's files share (suite/*.suite.ts): the test that receives its own store, its
 * helpers, and the times every test counts from.
 */

/** A fixed clock: every time in these tests is T0 plus some milliseconds. */
export const T0 = 1_700_000_000_000;

export const MINUTE = 60_000;

export function newCode(userId: string, overrides: Partial<NewCode> = {}): NewCode {
  return {
    id: newId(),
    userId,
    codeHash: `code-hash-${Math.random().toString(36).slice(2)}`,
    createdAt: T0,
    expiresAt: T0 + 10 * MINUTE,
    uses: 1,
    channelType: 'sms',
    ...overrides,
  };
}

export function issueAudit(userId: string, details: Record<string, unknown> = {}): NewAuditEntry {
  return { event: 'code.issued', userId, actor: userId, clientAddress: '192.0.2.1', details };
}

/** What each test gets: its own fresh store and helpers bound to it. */
export interface StoreFixture {
  store: Store;
  /** The expect of this test (tests run concurrently). */
  expect: ExpectStatic;
  /** Another instance on the same database (PostgreSQL) or file (SQLite); the caller closes it. */
  openSecondInstance: () => Promise<Store>;
  addUser: (overrides?: Partial<NewUser>) => Promise<NewUser>;
  /** Issues a code with room to spare; fails the test when the store refuses. */
  issue: (userId: string, overrides?: Partial<NewCode>) => Promise<NewCode>;
  expectTimesAreNumbers: (user: User) => void;
}

let userCounter = 0;

function storeFixture(testStore: TestStore, expect: ExpectStatic): StoreFixture {
  const { store } = testStore;
  return {
    store,
    expect,
    openSecondInstance: () => openStore({ databaseUrl: testStore.databaseUrl, dataDir: testStore.dataDir }),
    addUser: async (overrides = {}) => {
      userCounter += 1;
      const user: NewUser = {
        id: newId(),
        username: usernameOrThrow(`user${userCounter}-${Math.random().toString(36).slice(2, 8)}`),
        passwordHash: `hash-${userCounter}`,
        fullName: `User ${userCounter}`,
        locale: 'en',
        createdAt: T0,
        ...overrides,
      };
      await store.users.create(user);
      return user;
    },
    issue: async (userId, overrides = {}) => {
      const code = newCode(userId, overrides);
      expect(await store.codes.issue(code, 100, issueAudit(userId))).toEqual({ issued: true, channels: [] });
      return code;
    },
    expectTimesAreNumbers: (user) => {
      expect(typeof user.createdAt).toBe('number');
      if (user.lastLoginAt !== null) expect(typeof user.lastLoginAt).toBe('number');
      if (user.currentLoginAt !== null) expect(typeof user.currentLoginAt).toBe('number');
    },
  };
}

/** A concurrent test of the store suite that receives its own store, of the kind its suite overrides. */
export function storeCase(name: string, body: (fixture: StoreFixture) => Promise<void>): void {
  storeTest.concurrent(name, ({ testStore, expect }) => body(storeFixture(testStore, expect)));
}
