import { describe } from 'vitest';
import type { AuditFilter } from '../store.js';
import { storeCase, T0 } from './store-fixture.js';

/** The audit log. */
export function auditSuite(): void {
  describe.concurrent('audit', () => {
    storeCase('appends entries and lists them newest first', async ({ store, expect, addUser }) => {
      const user = await addUser();
      await store.audit.append(
        { event: 'signin.succeeded', userId: user.id, actor: 'self', clientAddress: '::1' },
        T0 + 1,
      );
      await store.audit.append({ event: 'system.start' }, T0 + 3);
      await store.audit.append({ event: 'code.issued', userId: user.id, details: { n: 1 } }, T0 + 2);
      const entries = await store.audit.list({});
      expect(entries.map((entry) => entry.at)).toEqual([T0 + 3, T0 + 2, T0 + 1]);
      expect(entries[2]).toEqual({
        id: expect.any(String),
        at: T0 + 1,
        event: 'signin.succeeded',
        userId: user.id,
        actor: 'self',
        clientAddress: '::1',
        details: {},
      });
      expect(entries[0]).toMatchObject({
        event: 'system.start',
        userId: null,
        actor: null,
        clientAddress: null,
      });
      for (const entry of entries) expect(typeof entry.at).toBe('number');
      expect(new Set(entries.map((entry) => entry.id)).size).toBe(3);
    });

    storeCase('filters by user, event, time and count', async ({ store, expect, addUser }) => {
      const alice = await addUser();
      const bob = await addUser();
      await store.audit.append({ event: 'signin.succeeded', userId: alice.id }, T0 + 1);
      await store.audit.append({ event: 'code.issued', userId: alice.id }, T0 + 2);
      await store.audit.append({ event: 'signin.succeeded', userId: bob.id }, T0 + 3);
      await store.audit.append({ event: 'code.issued', userId: alice.id }, T0 + 4);
      await store.audit.append({ event: 'signout', userId: alice.id }, T0 + 5);

      const ats = async (filter: AuditFilter): Promise<number[]> =>
        (await store.audit.list(filter)).map((entry) => entry.at - T0);
      expect(await ats({ userId: alice.id })).toEqual([5, 4, 2, 1]);
      expect(await ats({ userId: bob.id })).toEqual([3]);
      expect(await ats({ event: 'signin.succeeded' })).toEqual([3, 1]);
      expect(await ats({ since: T0 + 3 })).toEqual([5, 4, 3]);
      expect(await ats({ limit: 2 })).toEqual([5, 4]);
      expect(await ats({ userId: alice.id, event: 'code.issued', since: T0 + 3 })).toEqual([4]);
      expect(await ats({ userId: alice.id, limit: 3, since: T0 + 2 })).toEqual([5, 4, 2]);
      expect(await ats({ event: 'nothing' })).toEqual([]);
    });

    storeCase('keeps details as an object', async ({ store, expect }) => {
      const details = {
        text: 'ä ✓ "quoted"',
        number: 42.5,
        flag: false,
        none: null,
        list: [1, 'two', { three: 3 }],
        nested: { deeper: { value: 'x' } },
      };
      await store.audit.append({ event: 'system.start', details }, T0);
      const [entry] = await store.audit.list({});
      expect(entry?.details).toEqual(details);
    });
  });
}
