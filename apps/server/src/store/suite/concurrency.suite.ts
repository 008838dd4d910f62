import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { recordPostgresQueries } from '../../testing/recorded-sql.js';
import type { StoreKind } from '../../testing/stores.js';
import type { NewUser, Store } from '../store.js';
import { issueAudit, newCode, storeCase, type StoreFixture, T0 } from './store-fixture.js';

/** Many calls at once, on one instance and on two: reads of one turn, issues and consumes. */
export function concurrencySuite(kind: StoreKind): void {
  describe.concurrent('concurrency', () => {
    const CALLS = 20;
    const MAX_UNUSED = 5;

    /** Issues CALLS codes at once, spread over the instances; `store` is the first of them. */
    async function concurrentIssues(
      { store, expect }: StoreFixture,
      stores: Store[],
      userId: string,
    ): Promise<void> {
      const outcomes = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          stores[i % stores.length]!.codes.issue(
            newCode(userId, { createdAt: T0 + i }),
            MAX_UNUSED,
            issueAudit(userId, { call: i }),
          ),
        ),
      );
      const issued = outcomes.filter((outcome) => outcome.issued);
      const full = outcomes.filter((outcome) => !outcome.issued && outcome.reason === 'store-full');
      expect(issued).toHaveLength(MAX_UNUSED);
      expect(full).toHaveLength(CALLS - MAX_UNUSED);
      expect(await store.codes.countActive(userId, T0 + CALLS)).toBe(MAX_UNUSED);
      // Exactly one audit entry per issued code.
      expect(await store.audit.list({ userId, event: 'code.issued' })).toHaveLength(MAX_UNUSED);
    }

    /** Consumes one code CALLS times at once, spread over the instances. */
    async function concurrentConsumes(
      { store, expect }: StoreFixture,
      stores: Store[],
      codeId: string,
    ): Promise<void> {
      const results = await Promise.all(
        Array.from({ length: CALLS }, (_, i) => stores[i % stores.length]!.codes.consume(codeId, T0 + 1)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.codes.consume(codeId, T0 + 2)).toBe(false);
    }

    storeCase(
      'answers each of many reads made at once with its own row, as it does one at a time',
      async ({ store, expect, addUser }) => {
        // PostgreSQL answers the reads of one turn of the event loop with one query for all their keys.
        const users = await Promise.all(Array.from({ length: 6 }, () => addUser()));
        const [first, second, third, fourth] = users.map((user) => user.id) as [
          string,
          string,
          string,
          string,
        ];
        const low = newId();
        const high = newId();
        await store.groups.create({ id: low, name: `low-${low}`, priority: 1 });
        await store.groups.create({ id: high, name: `high-${high}`, priority: 9 });
        await store.groups.setPolicy(low, 'codes', { maxUnused: 1 });
        await store.groups.setPolicy(high, 'codes', { maxUnused: 9 });
        await store.groups.setPolicy(low, 'channels', { allowed: ['sms'] });
        for (const user of [first, second]) await store.groups.addMember(low, user);
        for (const user of [second, third]) await store.groups.addMember(high, user);
        await store.channels.set({
          id: newId(),
          userId: first,
          key: 'email',
          address: 'a@example.org',
          createdAt: T0,
        });
        await store.channels.set({
          id: newId(),
          userId: first,
          key: 'mobile',
          address: '+15550100',
          createdAt: T0 + 1,
        });
        await store.channels.set({
          id: newId(),
          userId: third,
          key: 'mobile',
          address: '+15550101',
          createdAt: T0,
        });
        for (const [index, user] of users.entries()) {
          await store.sessions.create({
            idHash: `many-${index}`,
            userId: user.id,
            createdAt: T0,
            lastSeenAt: T0 + index,
          });
        }
        await store.users.remove(fourth);

        const ids = [...users.map((user) => user.id), newId()];
        const hashes = [...users.map((_, index) => `many-${index}`), 'many-unknown', 'many-0'];
        const policyReads = ids.flatMap((id) =>
          ['codes', 'channels', 'none'].map((category) => [id, category] as const),
        );
        const [sessions, policies, channels] = await Promise.all([
          Promise.all(hashes.map((hash) => store.sessions.find(hash))),
          Promise.all(policyReads.map(([id, category]) => store.groups.findPolicyOfUser(id, category))),
          Promise.all(ids.map((id) => store.channels.listOfUser(id))),
        ]);
        const one = async <T>(reads: (() => Promise<T>)[]): Promise<T[]> => {
          const answers: T[] = [];
          for (const read of reads) answers.push(await read());
          return answers;
        };
        expect(sessions).toEqual(await one(hashes.map((hash) => () => store.sessions.find(hash))));
        expect(policies).toEqual(
          await one(
            policyReads.map(
              ([id, category]) =>
                () =>
                  store.groups.findPolicyOfUser(id, category),
            ),
          ),
        );
        expect(channels).toEqual(await one(ids.map((id) => () => store.channels.listOfUser(id))));
        // And what each answer holds.
        expect(sessions.map((session) => session?.userId)).toEqual([
          ...users.slice(0, 3).map((user) => user.id),
          undefined,
          ...users.slice(4).map((user) => user.id),
          undefined,
          first,
        ]);
        expect(sessions[0]?.user?.username).toBe(users[0]?.username);
        expect(policies.slice(0, 9)).toEqual([
          { maxUnused: 1 },
          { allowed: ['sms'] },
          undefined,
          { maxUnused: 9 },
          { allowed: ['sms'] },
          undefined,
          { maxUnused: 9 },
          undefined,
          undefined,
        ]);
        expect(channels.map((list) => list.map((channel) => channel.key))).toEqual([
          ['email', 'mobile'],
          [],
          ['mobile'],
          [],
          [],
          [],
          [],
        ]);
      },
    );

    storeCase(
      'issues the codes of many users at once, each under its own limit; a failing issue fails alone',
      async (fixture) => {
        const { store, expect } = fixture;
        const users = await Promise.all(Array.from({ length: 4 }, () => fixture.addUser()));
        const [holder, ...others] = users as [NewUser, ...NewUser[]];
        const taken = await fixture.issue(holder.id);
        const unlucky = await fixture.addUser();
        const calls = [
          ...users.flatMap((user) =>
            Array.from({ length: 5 }, (_, i) => newCode(user.id, { createdAt: T0 + 10 + i })),
          ),
          // This one reuses the id of a code already stored: its insert fails, the others must not.
          { ...newCode(unlucky.id, { createdAt: T0 + 10 }), id: taken.id },
        ];
        const outcomes = await Promise.allSettled(
          calls.map((code) => store.codes.issue(code, 3, issueAudit(code.userId))),
        );
        expect(outcomes.at(-1)?.status).toBe('rejected');
        expect(outcomes.slice(0, -1).every((outcome) => outcome.status === 'fulfilled')).toBe(true);
        const issuedOf = (userId: string) =>
          calls.filter(
            (code, index) =>
              code.userId === userId &&
              outcomes[index]?.status === 'fulfilled' &&
              outcomes[index].value.issued,
          ).length;
        // The holder already held one code: two more fit under 3.
        expect(issuedOf(holder.id)).toBe(2);
        for (const user of others) expect(issuedOf(user.id)).toBe(3);
        for (const user of users) {
          expect(await store.codes.countActive(user.id, T0 + 20)).toBe(3);
          // One entry per code the user holds (the holder's earlier code included).
          expect(await store.audit.list({ userId: user.id, event: 'code.issued' })).toHaveLength(3);
        }
        expect(await store.codes.countActive(unlucky.id, T0 + 20)).toBe(0);
        expect(await store.audit.list({ userId: unlucky.id, event: 'code.issued' })).toHaveLength(0);
      },
    );

    storeCase(`issues exactly ${MAX_UNUSED} of ${CALLS} concurrent codes for one user`, async (fixture) => {
      const user = await fixture.addUser();
      await concurrentIssues(fixture, [fixture.store], user.id);
    });

    storeCase('gives a single-use code to exactly one of 20 concurrent consumers', async (fixture) => {
      const user = await fixture.addUser();
      const code = await fixture.issue(user.id, { uses: 1 });
      await concurrentConsumes(fixture, [fixture.store], code.id);
    });

    if (kind === 'postgres') {
      storeCase(
        `issues exactly ${MAX_UNUSED} codes when ${CALLS} concurrent calls span two instances`,
        async (fixture) => {
          const { store, expect } = fixture;
          const user = await fixture.addUser();
          const second = await fixture.openSecondInstance();
          try {
            await concurrentIssues(fixture, [store, second], user.id);
            expect(await second.codes.countActive(user.id, T0 + CALLS)).toBe(MAX_UNUSED);
          } finally {
            await second.close();
          }
        },
      );

      storeCase(
        'issues the codes of many users at once over two instances without a deadlock, each under its limit',
        async (fixture) => {
          const { store, expect } = fixture;
          const users = await Promise.all(Array.from({ length: 6 }, () => fixture.addUser()));
          const second = await fixture.openSecondInstance();
          try {
            // Each instance gathers the issues of a turn into one statement; users in opposite orders.
            const calls = users.flatMap((user, u) =>
              Array.from({ length: 8 }, (_, i) => ({
                code: newCode(user.id, { createdAt: T0 + i }),
                on: (u + i) % 2,
              })),
            );
            const outcomes = await Promise.all(
              calls.map(({ code, on }, index) =>
                (on === 0 ? store : second).codes.issue(
                  code,
                  MAX_UNUSED,
                  issueAudit(code.userId, { call: index }),
                ),
              ),
            );
            for (const user of users) {
              const mine = outcomes.filter((_, index) => calls[index]!.code.userId === user.id);
              expect(mine.filter((outcome) => outcome.issued)).toHaveLength(MAX_UNUSED);
              expect(await second.codes.countActive(user.id, T0 + CALLS)).toBe(MAX_UNUSED);
            }
          } finally {
            await second.close();
          }
        },
      );

      storeCase(
        'reads the sessions, policies and channels of one turn in one round trip each, and issues their codes in one',
        async (fixture) => {
          const { store, expect } = fixture;
          const users = await Promise.all(Array.from({ length: 5 }, () => fixture.addUser()));
          const ids = users.map((user) => user.id);
          const hashes = ids.map((id) => `round-trip-${id}`);
          for (const [index, id] of ids.entries()) {
            await store.sessions.create({
              idHash: hashes[index]!,
              userId: id,
              createdAt: T0,
              lastSeenAt: T0,
            });
          }
          // Other tests run beside this one: only the queries that name these users count.
          const recording = recordPostgresQueries();
          try {
            await Promise.all(hashes.map((hash) => store.sessions.find(hash)));
            await Promise.all(ids.map((id) => store.groups.findPolicyOfUser(id, 'codes')));
            await Promise.all(ids.map((id) => store.channels.listOfUser(id)));
            await Promise.all(ids.map((id) => store.codes.issue(newCode(id), 3, issueAudit(id))));
          } finally {
            recording.stop();
          }
          const queries = recording.queries.filter(({ values }) =>
            ids.some((id) => JSON.stringify(values ?? null).includes(id)),
          );
          expect(queries).toHaveLength(4);
        },
      );

      storeCase('gives a single-use code to exactly one consumer across two instances', async (fixture) => {
        const user = await fixture.addUser();
        const code = await fixture.issue(user.id, { uses: 1 });
        const second = await fixture.openSecondInstance();
        try {
          await concurrentConsumes(fixture, [fixture.store, second], code.id);
        } finally {
          await second.close();
        }
      });
    }
  });
}
