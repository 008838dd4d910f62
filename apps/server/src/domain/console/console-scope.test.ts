import { usernameOrThrow } from '@dea/contract';
import { describe, test } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { ConsoleRole, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { CONSOLE_ACCESS } from './console-access.js';
import { auditScopeOf, checkedScope, inScope, sameScope, scopeHolds, scopeOf } from './console-scope.js';

const T0 = Date.UTC(2026, 11, 7, 12);

const account = (role: ConsoleRole, scope: readonly string[] | null = null) => ({ role, scope });

/** A user in the named groups (made when missing). */
async function memberOf(store: Store, username: string, groups: string[]): Promise<string> {
  const id = newId(T0);
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: 'hash',
    fullName: username,
    locale: 'en',
    createdAt: T0,
  });
  for (const name of groups) {
    let groupId = (await store.groups.findByName(name))?.id;
    if (groupId === undefined) {
      groupId = newId(T0);
      await store.groups.create({ id: groupId, name, priority: 1 });
    }
    await store.groups.addMember(groupId, id);
  }
  return id;
}

describe('scoped console roles', () => {
  test('an administrator is never limited, whatever scope is kept for it', ({ expect }) => {
    expect(scopeOf(account('admin', ['Staff EU']))).toBeNull();
    expect(scopeHolds(account('admin', ['Staff EU']), [])).toBe(true);
    expect(auditScopeOf(account('admin', ['Staff EU']))).toEqual({});
  });

  test('a help-desk or auditor account with a scope reaches members of any one of its groups only', ({
    expect,
  }) => {
    for (const role of ['helpdesk', 'auditor'] as const) {
      const limited = account(role, ['Staff EU', 'Staff US']);
      expect(scopeOf(limited), role).toEqual(['Staff EU', 'Staff US']);
      expect(scopeHolds(limited, ['Sales', 'Staff US']), role).toBe(true);
      expect(scopeHolds(limited, ['Sales']), role).toBe(false);
      expect(scopeHolds(limited, []), role).toBe(false);
      // Group names are matched as they are written.
      expect(scopeHolds(limited, ['staff eu']), role).toBe(false);
      expect(auditScopeOf(limited), role).toEqual({ userInGroups: ['Staff EU', 'Staff US'] });
      expect(scopeHolds(account(role), ['Sales']), role).toBe(true);
      expect(auditScopeOf(account(role)), role).toEqual({});
    }
  });

  test('a scope is kept trimmed and without repeats; one for an administrator or of no group is refused, naming where', ({
    expect,
  }) => {
    expect(checkedScope('helpdesk', [' Staff EU', 'Staff EU ', 'VPN', ''], '--scope')).toEqual({
      scope: ['Staff EU', 'VPN'],
    });
    expect(checkedScope('admin', ['Staff EU'], '--scope')).toEqual({
      problem: '--scope: a scope limits only helpdesk or auditor, not admin',
    });
    expect(checkedScope('auditor', ['  ', ''], 'DEA_CONSOLE_LDAP_ROLES: "x"')).toEqual({
      problem: 'DEA_CONSOLE_LDAP_ROLES: "x": a scope names at least one group',
    });
  });

  test('two scopes are the same only with the same groups in the same order', ({ expect }) => {
    expect(sameScope(null, null)).toBe(true);
    expect(sameScope(['A', 'B'], ['A', 'B'])).toBe(true);
    expect(sameScope(['A', 'B'], ['B', 'A'])).toBe(false);
    expect(sameScope(null, ['A'])).toBe(false);
  });

  test("the console's doors: administration for administrators, the help desk also for help-desk agents, the audit and reports also for auditors", ({
    expect,
  }) => {
    expect(CONSOLE_ACCESS).toEqual({
      administer: ['admin'],
      workHelpDesk: ['admin', 'helpdesk'],
      readAudit: ['admin', 'auditor'],
      readReports: ['admin', 'auditor'],
    });
  });
});

describe.each(STORE_KINDS)("a scope over the store's groups on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a user is in an account's scope when one of the user's groups is one of the scope's",
    async ({ testStore: { store }, expect }) => {
      const inside = await memberOf(store, 'inside', ['Sales', 'Staff EU']);
      const outside = await memberOf(store, 'outside', ['Sales']);
      const alone = await memberOf(store, 'alone', []);
      const agent = account('helpdesk', ['Staff EU']);
      expect(await inScope(store, agent, inside)).toBe(true);
      expect(await inScope(store, agent, outside)).toBe(false);
      expect(await inScope(store, agent, alone)).toBe(false);
      expect(await inScope(store, agent, 'no-such-user')).toBe(false);
      for (const unlimited of [account('helpdesk'), account('admin', ['Staff EU'])])
        for (const userId of [outside, alone])
          expect(await inScope(store, unlimited, userId), unlimited.role).toBe(true);
    },
  );
});
