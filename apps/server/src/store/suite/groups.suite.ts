import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store } from '../store.js';
import { storeCase } from './store-fixture.js';

/** Groups, their owners, members and policies. */
export function groupsSuite(): void {
  describe.concurrent('groups and policies', () => {
    async function addGroup(store: Store, name: string, priority: number): Promise<string> {
      const id = newId();
      await store.groups.create({ id, name, priority });
      return id;
    }

    storeCase('creates, finds and lists groups by priority', async ({ store, expect }) => {
      const low = await addGroup(store, 'low', 1);
      const high = await addGroup(store, 'high', 10);
      const alsoLow = await addGroup(store, 'also-low', 1);
      expect(await store.groups.findByName('high')).toEqual({
        id: high,
        name: 'high',
        priority: 10,
        source: 'local',
      });
      expect(await store.groups.findByName('none')).toBeUndefined();
      const groups = await store.groups.list();
      expect(groups).toEqual([
        { id: high, name: 'high', priority: 10, source: 'local' },
        { id: alsoLow, name: 'also-low', priority: 1, source: 'local' },
        { id: low, name: 'low', priority: 1, source: 'local' },
      ]);
      for (const group of groups) expect(typeof group.priority).toBe('number');
      await expect(store.groups.create({ id: newId(), name: 'high', priority: 3 })).rejects.toThrow();
      expect(await store.groups.rename(low, 'lower')).toBe(true);
      expect(await store.groups.findByName('lower')).toEqual({
        id: low,
        name: 'lower',
        priority: 1,
        source: 'local',
      });
      await expect(store.groups.rename(low, 'high')).rejects.toThrow();
      expect(await store.groups.rename(newId(), 'ghost')).toBe(false);
    });

    storeCase('remembers who owns a group, and hands it over', async ({ store, expect, addUser }) => {
      const scim = newId();
      await store.groups.create({ id: scim, name: `scim-${scim}`, priority: 0, source: 'scim' });
      const local = await addGroup(store, `local-${scim}`, 0);
      const { id: user } = await addUser();
      await store.groups.addMember(local, user);
      await store.groups.addMember(scim, user);
      expect((await store.groups.listOfUser(user)).map((group) => [group.id, group.source])).toEqual([
        [local, 'local'],
        [scim, 'scim'],
      ]);
      expect(await store.groups.setSource(local, 'scim')).toBe(true);
      expect((await store.groups.findByName(`local-${scim}`))?.source).toBe('scim');
      expect(await store.groups.setSource(newId(), 'scim')).toBe(false);
    });

    storeCase(
      'resolves the policy of the highest-priority group that has one for the category',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const low = await addGroup(store, 'low', 1);
        const mid = await addGroup(store, 'mid', 5);
        const high = await addGroup(store, 'high', 10);
        const notMine = await addGroup(store, 'not-mine', 100);
        for (const group of [low, mid, high]) await store.groups.addMember(group, user.id);

        await store.groups.setPolicy(low, 'codes', { maxUnused: 1 });
        await store.groups.setPolicy(mid, 'codes', { maxUnused: 5, nested: { list: [1, 'a'] } });
        await store.groups.setPolicy(high, 'channels', { allowed: ['sms'] });
        await store.groups.setPolicy(notMine, 'codes', { maxUnused: 99 });

        // 'high' has no 'codes' policy and 'not-mine' is not the user's: 'mid' wins.
        expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({
          maxUnused: 5,
          nested: { list: [1, 'a'] },
        });
        expect(await store.groups.findPolicyOfUser(user.id, 'channels')).toEqual({ allowed: ['sms'] });
        expect(await store.groups.findPolicyOfUser(user.id, 'other')).toBeUndefined();

        const loner = await addUser();
        expect(await store.groups.findPolicyOfUser(loner.id, 'codes')).toBeUndefined();
        expect(await store.groups.findPolicyOfUser(newId(), 'codes')).toBeUndefined();

        // Leaving 'mid' falls back to 'low'.
        await store.groups.removeMember(mid, user.id);
        expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({ maxUnused: 1 });
      },
    );

    storeCase(
      'reads two categories at once as it reads each alone, also in parallel for several users',
      async ({ store, expect, addUser }) => {
        const user = await addUser();
        const other = await addUser();
        const loner = await addUser();
        const low = await addGroup(store, 'low', 1);
        const high = await addGroup(store, 'high', 10);
        const tie = await addGroup(store, 'a-tie', 10);
        for (const group of [low, high, tie]) await store.groups.addMember(group, user.id);
        await store.groups.addMember(low, other.id);
        await store.groups.setPolicy(low, 'codes', { maxUnused: 1 });
        await store.groups.setPolicy(low, 'channels', { allowed: ['email'] });
        await store.groups.setPolicy(high, 'codes', { maxUnused: 5 });
        // Of two groups of one priority, the name first in order decides.
        await store.groups.setPolicy(tie, 'channels', { allowed: ['sms'] });
        await store.groups.setPolicy(high, 'channels', { allowed: ['voice'] });

        const [mine, others, none, oneOnly] = await Promise.all([
          store.groups.findPoliciesOfUser(user.id, ['codes', 'channels']),
          store.groups.findPoliciesOfUser(other.id, ['codes', 'channels']),
          store.groups.findPoliciesOfUser(loner.id, ['codes', 'channels']),
          store.groups.findPoliciesOfUser(user.id, ['codes', 'other']),
        ]);
        expect(mine).toEqual([{ maxUnused: 5 }, { allowed: ['sms'] }]);
        expect(mine).toEqual([
          await store.groups.findPolicyOfUser(user.id, 'codes'),
          await store.groups.findPolicyOfUser(user.id, 'channels'),
        ]);
        expect(others).toEqual([{ maxUnused: 1 }, { allowed: ['email'] }]);
        expect(none).toEqual([undefined, undefined]);
        expect(oneOnly).toEqual([{ maxUnused: 5 }, undefined]);
      },
    );

    storeCase('overwrites a policy on setPolicy', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const group = await addGroup(store, 'g', 1);
      await store.groups.addMember(group, user.id);
      await store.groups.setPolicy(group, 'codes', { maxUnused: 3, old: true });
      await store.groups.setPolicy(group, 'codes', { maxUnused: 7 });
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({ maxUnused: 7 });
    });

    storeCase('adds a member idempotently and removes it', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const group = await addGroup(store, 'g', 1);
      await store.groups.setPolicy(group, 'codes', { maxUnused: 2 });
      expect(await store.groups.addMember(group, user.id)).toBe(true);
      expect(await store.groups.addMember(group, user.id)).toBe(false);
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toEqual({ maxUnused: 2 });

      // One removal is enough: the second add did not make a second membership.
      expect(await store.groups.removeMember(group, user.id)).toBe(true);
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toBeUndefined();
      expect(await store.groups.removeMember(group, user.id)).toBe(false);
    });

    storeCase('lists the policies and the members of a group', async ({ store, expect, addUser }) => {
      const group = await addGroup(store, 'g', 1);
      const other = await addGroup(store, 'other', 2);
      expect(await store.groups.listPolicies(group)).toEqual([]);
      expect(await store.groups.listMembers(group)).toEqual([]);
      await store.groups.setPolicy(group, 'Self Service', { codeLength: 8, enableECode: true });
      await store.groups.setPolicy(group, 'Another', { codeUses: 2 });
      await store.groups.setPolicy(other, 'Self Service', { codeLength: 12 });
      expect(await store.groups.listPolicies(group)).toEqual([
        { category: 'Another', options: { codeUses: 2 } },
        { category: 'Self Service', options: { codeLength: 8, enableECode: true } },
      ]);
      const [first, second, outsider] = [await addUser(), await addUser(), await addUser()];
      await store.groups.addMember(group, first.id);
      await store.groups.addMember(group, second.id);
      await store.groups.addMember(other, outsider.id);
      expect(await store.groups.listMembers(group)).toEqual([first.id, second.id].sort());
      await store.users.remove(first.id);
      expect(await store.groups.listMembers(group)).toEqual([second.id]);
    });

    storeCase('removes memberships with the user', async ({ store, expect, addUser }) => {
      const user = await addUser();
      const group = await addGroup(store, 'g', 1);
      await store.groups.setPolicy(group, 'codes', { maxUnused: 2 });
      await store.groups.addMember(group, user.id);
      await store.users.remove(user.id);
      // Same id again: a fresh user is in no group.
      await store.users.create({ ...user, username: usernameOrThrow(`${user.username}-again`) });
      expect(await store.groups.findPolicyOfUser(user.id, 'codes')).toBeUndefined();
    });
  });
}
