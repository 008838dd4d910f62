import { usernameOrThrow } from '@dea/contract';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Group, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { builtEntry } from '../../testing/processes.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { Groups, type MembersChanged } from './groups.js';
import type { ChangeBy } from './user-ownership.js';

const OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };

/** One change a round asks of an instance: a member joins or leaves, or the members become a set. */
type Change = { userId: string; member: boolean } | { members: string[] };

/**
 * The second instance: the built groups module on a store of its own in a worker thread. On the
 * embedded store a second instance must not share the thread: SQLite waits for a lock without
 * yielding, so a second connection in the same thread would hold up the first one's commit.
 */
const SECOND_INSTANCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { openStore } = await import(workerData.openStore);
  const { Groups } = await import(workerData.groups);
  const store = await openStore(workerData.options);
  const groups = new Groups(store, Date.now);
  const changer = { door: 'local', actor: 'cli' };
  parentPort.on('message', async (round) => {
    if (round === 'close') {
      await store.close();
      parentPort.postMessage('closed');
      return;
    }
    try {
      const results = await Promise.all(round.changes.map((change) =>
        'members' in change
          ? groups.setMembers(round.group, new Set(change.members), () => true, changer)
          : groups.changeMember(round.group, change.userId, change.member, changer)));
      parentPort.postMessage({ results });
    } catch (error) {
      parentPort.postMessage({ error: String(error && error.stack || error) });
    }
  });
  parentPort.postMessage('ready');
})().catch((error) => parentPort.postMessage({ error: String(error.stack) }));
`;

async function secondInstance(options: { dataDir: string; databaseUrl?: string }) {
  const dist = dirname(builtEntry('dea'));
  const worker = new Worker(SECOND_INSTANCE, {
    eval: true,
    workerData: {
      options,
      openStore: pathToFileURL(join(dist, 'store', 'open-store.js')).href,
      groups: pathToFileURL(join(dist, 'domain', 'identity', 'groups.js')).href,
    },
  });
  const next = async (): Promise<unknown> => {
    const [message] = (await once(worker, 'message')) as [unknown];
    if (typeof message === 'object' && message !== null && 'error' in message)
      throw new Error(`second instance: ${String(message.error)}`);
    return message;
  };
  expect(await next()).toBe('ready');
  return {
    async run(group: Group, changes: readonly Change[]): Promise<(boolean | MembersChanged)[]> {
      const answer = next();
      worker.postMessage({ group, changes });
      return ((await answer) as { results: (boolean | MembersChanged)[] }).results;
    },
    async close() {
      const answer = next();
      worker.postMessage('close');
      await answer;
      await worker.terminate();
    },
  };
}

function runHere(groups: Groups, group: Group, changes: readonly Change[]) {
  return Promise.all(
    changes.map((change) =>
      'members' in change
        ? groups.setMembers(group, new Set(change.members), () => true, OPERATOR)
        : groups.changeMember(group, change.userId, change.member, OPERATOR),
    ),
  );
}

async function addUser(store: Store, username: string): Promise<string> {
  const id = newId();
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: 'no password',
    fullName: username,
    locale: 'en',
    createdAt: Date.now(),
  });
  return id;
}

const changedCount = (results: readonly (boolean | MembersChanged)[]) =>
  results.reduce<number>(
    (sum, result) =>
      sum + (typeof result === 'boolean' ? Number(result) : result.added.length + result.removed.length),
    0,
  );

describe.each(STORE_KINDS)('the groups module on two instances of %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'members added and removed at once from both: each change audited exactly once, membership right',
    async ({ testStore }) => {
      const { store } = testStore;
      const here = new Groups(store, Date.now);
      const there = await secondInstance({
        dataDir: testStore.dataDir,
        ...(testStore.databaseUrl !== undefined && { databaseUrl: testStore.databaseUrl }),
      });
      try {
        const group = await here.create({ name: 'Crowd', priority: 0 }, OPERATOR);
        const users: string[] = [];
        for (let index = 0; index < 12; index += 1) users.push(await addUser(store, `user${index}`));
        const wanted = users.slice(0, 6);
        const rounds: { here: Change[]; there: Change[] }[] = [
          // Both add every user at once.
          {
            here: users.map((userId) => ({ userId, member: true })),
            there: users.map((userId) => ({ userId, member: true })),
          },
          // Both remove every user at once.
          {
            here: users.map((userId) => ({ userId, member: false })),
            there: users.map((userId) => ({ userId, member: false })),
          },
          // One sets the members as SCIM's PUT does while the other adds the same users one by one.
          { here: [{ members: wanted }], there: wanted.map((userId) => ({ userId, member: true })) },
        ];
        let changes = 0;
        for (const round of rounds) {
          const [mine, theirs] = await Promise.all([
            runHere(here, group, round.here),
            there.run(group, round.there),
          ]);
          changes += changedCount(mine) + changedCount(theirs);
        }

        expect((await store.groups.listMembers(group.id)).sort()).toEqual([...wanted].sort());
        const entries = (await store.audit.list({ limit: 10_000 })).filter((entry) =>
          entry.event.startsWith('group.member_'),
        );
        // What the instances answered as changed is what was audited: once each.
        expect(entries).toHaveLength(changes);
        for (const userId of users) {
          // Joined, left, and (the wanted) joined again: once each, whichever instance made it.
          const events = entries
            .filter((entry) => entry.userId === userId)
            .map((entry) => entry.event)
            .sort();
          expect(events, userId).toEqual(
            wanted.includes(userId)
              ? ['group.member_added', 'group.member_added', 'group.member_removed']
              : ['group.member_added', 'group.member_removed'],
          );
        }
      } finally {
        await there.close();
      }
    },
  );
});
