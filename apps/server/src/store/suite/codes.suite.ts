import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { cutoffsAt } from '../../testing/purge-cutoffs.js';
import { recordPostgresQueries } from '../../testing/recorded-sql.js';
import type { NewAuditEntry } from '../store.js';
import { issueAudit, MINUTE, newCode, storeCase, T0 } from './store-fixture.js';

/** A code as listActive answers it: what was issued, with the uses it has left. */
function listed(
  code: {
    id: string;
    codeHash: string;
    channelType: string | null;
    createdAt: number;
    expiresAt: number;
    uses: number;
  },
  usesLeft = code.uses,
) {
  const { id, codeHash, channelType, createdAt, expiresAt } = code;
  return { id, codeHash, channelType, createdAt, expiresAt, usesLeft };
}

/** Codes: issue within the limit, consume, list, purge. */
export function codesSuite(): void {
  describe.concurrent('codes', () => {
    storeCase('issues up to maxUnused codes, then answers store-full', async ({ store, expect, addUser }) => {
      const user = await addUser();
      for (let i = 0; i < 3; i++) {
        const outcome = await store.codes.issue(
          newCode(user.id, { createdAt: T0 + i }),
          3,
          issueAudit(user.id),
        );
        expect(outcome).toEqual({ issued: true, channels: [] });
      }
      const refused = await store.codes.issue(
        newCode(user.id, { createdAt: T0 + 3 }),
        3,
        issueAudit(user.id),
      );
      expect(refused).toEqual({ issued: false, reason: 'store-full' });
      expect(await store.codes.countActive(user.id, T0 + 4)).toBe(3);
      // The limit is per user.
      const other = await addUser();
      expect(await store.codes.issue(newCode(other.id), 3, issueAudit(other.id))).toEqual({
        issued: true,
        channels: [],
      });
    });

    storeCase(
      "answers the user's channels with the issue, as listOfUser lists them, alone and gathered in one statement",
      async ({ store, expect, addUser }) => {
        const users = await Promise.all([addUser(), addUser(), addUser()]);
        const [first, second, third] = users.map((user) => user.id) as [string, string, string];
        await store.channels.set({
          id: newId(),
          userId: first,
          key: 'mobile',
          address: '+491705550101',
          createdAt: T0 + 2,
        });
        await store.channels.set({
          id: newId(),
          userId: first,
          key: 'email',
          address: 'one@example.com',
          createdAt: T0 + 2,
        });
        await store.channels.set({
          id: newId(),
          userId: first,
          key: 'telephone',
          address: '+4930550101',
          createdAt: T0 + 1,
        });
        await store.channels.setProven({
          id: newId(),
          userId: second,
          key: 'email',
          address: 'two@example.com',
          at: T0 + 3,
        });
        const listed = await Promise.all(users.map((user) => store.channels.listOfUser(user.id)));
        expect(listed.map((channels) => channels.length)).toEqual([3, 1, 0]);
        expect(listed[0]!.map((channel) => channel.key)).toEqual(['telephone', 'email', 'mobile']);
        expect(await store.codes.issue(newCode(first), 5, issueAudit(first))).toEqual({
          issued: true,
          channels: listed[0],
        });
        // The issues of one turn (one statement on PostgreSQL), each with its own user's channels.
        const recording = recordPostgresQueries();
        let outcomes: Awaited<ReturnType<typeof store.codes.issue>>[];
        try {
          outcomes = await Promise.all(
            users.map((user) => store.codes.issue(newCode(user.id), 5, issueAudit(user.id))),
          );
        } finally {
          recording.stop();
        }
        expect(outcomes).toEqual(listed.map((channels) => ({ issued: true, channels })));
        if (store.kind === 'postgres')
          expect(
            recording.queries.filter(({ values }) =>
              [first, second, third].some((id) => JSON.stringify(values ?? null).includes(id)),
            ),
          ).toHaveLength(1);
        // A refused issue answers no channels.
        expect(await store.codes.issue(newCode(first), 1, issueAudit(first))).toEqual({
          issued: false,
          reason: 'store-full',
        });
      },
    );

    storeCase(
      'gives back a use whose answer did not get out, never to an unused or revoked code',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const code = newCode(user.id);
        await store.codes.issue(code, 5, issueAudit(user.id));
        expect(await store.codes.giveBackUse(code.id)).toBe(false);
        expect(await store.codes.consume(code.id, T0 + 1)).toBe(true);
        expect(await store.codes.countActive(user.id, T0 + 2)).toBe(0);
        expect(await store.codes.giveBackUse(code.id)).toBe(true);
        expect(await store.codes.countActive(user.id, T0 + 2)).toBe(1);
        expect(await store.codes.consume(code.id, T0 + 3)).toBe(true);
        expect(await store.codes.invalidate(code.id, T0 + 4)).toBe(true);
        expect(await store.codes.giveBackUse(code.id)).toBe(false);
      },
    );

    storeCase('answers no-user for an unknown user and stores nothing', async ({ store, expect }) => {
      const ghost = newId();
      const outcome = await store.codes.issue(newCode(ghost), 5, issueAudit(ghost));
      expect(outcome).toEqual({ issued: false, reason: 'no-user' });
      expect(await store.codes.countActive(ghost, T0)).toBe(0);
      expect(await store.audit.list({})).toEqual([]);
    });

    storeCase(
      'writes the audit entry with the code, and none when refused',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const details = { channel: 'sms', count: 1, flags: [true, null] };
        await store.codes.issue(newCode(user.id, { createdAt: T0 + 5 }), 1, issueAudit(user.id, details));
        const entries = await store.audit.list({});
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({
          at: T0 + 5,
          event: 'code.issued',
          userId: user.id,
          actor: user.id,
          clientAddress: '192.0.2.1',
          details,
        });

        const refused = await store.codes.issue(
          newCode(user.id, { createdAt: T0 + 6 }),
          1,
          issueAudit(user.id, { refused: true }),
        );
        expect(refused).toEqual({ issued: false, reason: 'store-full' });
        expect(await store.audit.list({})).toHaveLength(1);
      },
    );

    storeCase(
      'keeps neither the code nor the audit entry when the audit entry cannot be written',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        // A BigInt cannot be written as JSON: the audit insert fails after the code insert.
        const broken: NewAuditEntry = { event: 'code.issued', userId: user.id, details: { n: 1n } };
        await expect(store.codes.issue(newCode(user.id), 5, broken)).rejects.toThrow();
        expect(await store.codes.countActive(user.id, T0)).toBe(0);
        expect(await store.codes.listActive(user.id, T0)).toEqual([]);
        expect(await store.audit.list({})).toEqual([]);
        // The rolled-back transaction leaves the store usable.
        expect(await store.codes.issue(newCode(user.id), 1, issueAudit(user.id))).toEqual({
          issued: true,
          channels: [],
        });
      },
    );

    storeCase(
      'does not count expired, invalidated or used-up codes against maxUnused',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const expiring = newCode(user.id, { createdAt: T0, expiresAt: T0 + 10 });
        expect(await store.codes.issue(expiring, 1, issueAudit(user.id))).toEqual({
          issued: true,
          channels: [],
        });
        expect(
          await store.codes.issue(newCode(user.id, { createdAt: T0 + 9 }), 1, issueAudit(user.id)),
        ).toEqual({ issued: false, reason: 'store-full' });

        // At its expiry time the first code no longer counts.
        const second = newCode(user.id, { createdAt: T0 + 10, expiresAt: T0 + MINUTE });
        expect(await store.codes.issue(second, 1, issueAudit(user.id))).toEqual({
          issued: true,
          channels: [],
        });

        await store.codes.invalidate(second.id, T0 + 11);
        const third = newCode(user.id, { createdAt: T0 + 12, expiresAt: T0 + MINUTE });
        expect(await store.codes.issue(third, 1, issueAudit(user.id))).toEqual({
          issued: true,
          channels: [],
        });

        expect(await store.codes.consume(third.id, T0 + 13)).toBe(true);
        const fourth = newCode(user.id, { createdAt: T0 + 14, expiresAt: T0 + MINUTE });
        expect(await store.codes.issue(fourth, 1, issueAudit(user.id))).toEqual({
          issued: true,
          channels: [],
        });

        expect(await store.codes.listActive(user.id, T0 + 15)).toEqual([listed(fourth)]);
      },
    );

    storeCase('lists and counts active codes only', async ({ store, expect, addUser, issue }) => {
      const user = await addUser();
      const other = await addUser();
      const a = await issue(user.id, { createdAt: T0 + 1, expiresAt: T0 + 100 });
      const b = await issue(user.id, { createdAt: T0 + 2, expiresAt: T0 + 200, uses: 3 });
      const invalidated = await issue(user.id, { createdAt: T0 + 3 });
      await store.codes.invalidate(invalidated.id, T0 + 4);
      const used = await issue(user.id, { createdAt: T0 + 5 });
      expect(await store.codes.consume(used.id, T0 + 6)).toBe(true);
      await issue(user.id, { createdAt: T0 + 7, uses: 0 });
      await issue(other.id, { createdAt: T0 + 8 });

      expect(await store.codes.listActive(user.id, T0 + 50)).toEqual([listed(a), listed(b)]);
      const count = await store.codes.countActive(user.id, T0 + 50);
      expect(count).toBe(2);
      expect(typeof count).toBe('number');

      // A code is not active at its expiry time.
      expect(await store.codes.listActive(user.id, T0 + 100)).toEqual([listed(b)]);
      expect(await store.codes.countActive(user.id, T0 + 100)).toBe(1);
      expect(await store.codes.countActive(user.id, T0 + 200)).toBe(0);
      expect(await store.codes.listActive(newId(), T0)).toEqual([]);
      expect(await store.codes.countActive(newId(), T0)).toBe(0);
    });

    storeCase(
      'consumes one use at a time and refuses when none is left',
      async ({ store, expect, addUser, issue }) => {
        const user = await addUser();
        const code = await issue(user.id, { uses: 2 });
        expect(await store.codes.consume(code.id, T0 + 1)).toBe(true);
        expect(await store.codes.countActive(user.id, T0 + 1)).toBe(1);
        expect(await store.codes.consume(code.id, T0 + 2)).toBe(true);
        expect(await store.codes.countActive(user.id, T0 + 2)).toBe(0);
        expect(await store.codes.consume(code.id, T0 + 3)).toBe(false);
        expect(await store.codes.consume(newId(), T0 + 3)).toBe(false);
      },
    );

    storeCase(
      'refuses to consume an expired or invalidated code',
      async ({ store, expect, addUser, issue }) => {
        const user = await addUser();
        const expiring = await issue(user.id, { expiresAt: T0 + 100, uses: 5 });
        expect(await store.codes.consume(expiring.id, T0 + 100)).toBe(false);
        expect(await store.codes.consume(expiring.id, T0 + 99)).toBe(true);

        const invalidated = await issue(user.id, { uses: 5 });
        await store.codes.invalidate(invalidated.id, T0 + 1);
        expect(await store.codes.consume(invalidated.id, T0 + 2)).toBe(false);
        // Invalidating again changes nothing.
        await store.codes.invalidate(invalidated.id, T0 + 3);
        expect(await store.codes.consume(invalidated.id, T0 + 4)).toBe(false);
        // Only the expiring code, with uses left, is active until it expires.
        expect(await store.codes.listActive(user.id, T0 + 5)).toEqual([listed(expiring, 4)]);
        expect(await store.codes.countActive(user.id, T0 + 100)).toBe(0);
      },
    );

    storeCase(
      'purges expired, used and invalidated codes and keeps active ones',
      async ({ store, expect, addUser, issue }) => {
        const user = await addUser();
        const active = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000, uses: 2 });
        expect(await store.codes.consume(active.id, T0 + 1)).toBe(true);
        await issue(user.id, { createdAt: T0 + 1, expiresAt: T0 + 50 });
        const used = await issue(user.id, { createdAt: T0 + 2 });
        expect(await store.codes.consume(used.id, T0 + 3)).toBe(true);
        const invalidated = await issue(user.id, { createdAt: T0 + 4 });
        await store.codes.invalidate(invalidated.id, T0 + 5);

        expect(await store.retention.count('codes', cutoffsAt(T0 + 100))).toBe(3);
        const purged = await store.retention.removeBatch('codes', cutoffsAt(T0 + 100), 1000);
        expect(purged).toBe(3);
        expect(typeof purged).toBe('number');
        expect(await store.codes.listActive(user.id, T0 + 100)).toEqual([listed(active, 1)]);
        expect(await store.retention.removeBatch('codes', cutoffsAt(T0 + 100), 1000)).toBe(0);
        // The kept code still has its one use left.
        expect(await store.codes.consume(active.id, T0 + 101)).toBe(true);
        expect(await store.retention.removeBatch('codes', cutoffsAt(T0 + 102), 1000)).toBe(1);
      },
    );

    storeCase(
      'removes expired codes first, then used and revoked ones, never more than a batch',
      async ({ store, expect, addUser, issue }) => {
        const user = await addUser();
        for (let index = 0; index < 3; index += 1)
          await issue(user.id, { createdAt: T0, expiresAt: T0 + 10 });
        const usedAndExpired = await issue(user.id, { createdAt: T0, expiresAt: T0 + 10 });
        expect(await store.codes.consume(usedAndExpired.id, T0 + 1)).toBe(true);
        for (let index = 0; index < 2; index += 1) {
          const used = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000 });
          expect(await store.codes.consume(used.id, T0 + 2)).toBe(true);
        }
        const revoked = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000 });
        await store.codes.invalidate(revoked.id, T0 + 3);
        const active = await issue(user.id, { createdAt: T0, expiresAt: T0 + 1_000 });

        const cutoffs = cutoffsAt(T0 + 100);
        expect(await store.retention.count('codes', cutoffs)).toBe(7);
        expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(3);
        expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(3);
        expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(1);
        expect(await store.retention.removeBatch('codes', cutoffs, 3)).toBe(0);
        expect(await store.codes.listActive(user.id, T0 + 100)).toEqual([listed(active, 1)]);
      },
    );

    storeCase('removes the codes with the user', async ({ store, expect, addUser, issue }) => {
      const user = await addUser();
      await issue(user.id);
      await store.users.remove(user.id);
      expect(await store.codes.countActive(user.id, T0)).toBe(0);
      expect(await store.retention.count('codes', cutoffsAt(T0 + 1_000_000))).toBe(0);
    });
  });
}
