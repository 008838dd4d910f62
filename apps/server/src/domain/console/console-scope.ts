import type { ConsoleAccount, ConsoleRole, Store } from '../../store/store.js';

/**
 * Scoped roles (ADR 0020): a help-desk or auditor account may be limited to the members
 * of named groups. The one rule every console door on users calls (help-desk search, a user's
 * view, codes issued, sent or revoked, unlocking, ending sessions, the audit log and its CSV):
 * a user outside the scope is answered as one that does not exist, and the audit log holds only
 * entries about users in it (filtered by the store). Administrators are never limited.
 */

/** The roles a scope may limit. */
export const SCOPED_ROLES: readonly ConsoleRole[] = ['helpdesk', 'auditor'];

/** The groups an account is limited to, or null when it sees everyone (an administrator always). */
export function scopeOf(account: Pick<ConsoleAccount, 'role' | 'scope'>): readonly string[] | null {
  if (!SCOPED_ROLES.includes(account.role)) return null;
  return account.scope;
}

/**
 * A scope as kept: group names, trimmed, without repeats. Answers a problem (naming where the
 * scope came from) for an administrator's scope or a scope without a group.
 */
export function checkedScope(
  role: ConsoleRole,
  names: readonly string[],
  where: string,
): { scope: readonly string[] } | { problem: string } {
  const scope = [...new Set(names.map((name) => name.trim()).filter((name) => name !== ''))];
  if (!SCOPED_ROLES.includes(role))
    return { problem: `${where}: a scope limits only ${SCOPED_ROLES.join(' or ')}, not ${role}` };
  if (scope.length === 0) return { problem: `${where}: a scope names at least one group` };
  return { scope };
}

/** The user is one this account may see and act on: no scope, or a member of one of its groups. */
export async function inScope(
  store: Store,
  account: Pick<ConsoleAccount, 'role' | 'scope'>,
  userId: string,
): Promise<boolean> {
  if (scopeOf(account) === null) return true;
  return scopeHolds(
    account,
    (await store.groups.listOfUser(userId)).map((group) => group.name),
  );
}

/** The same rule over a user's groups already read (the help desk's search reads them with the user). */
export function scopeHolds(
  account: Pick<ConsoleAccount, 'role' | 'scope'>,
  groupNames: readonly string[],
): boolean {
  const scope = scopeOf(account);
  return scope === null || groupNames.some((name) => scope.includes(name));
}

/** The audit filter's part of the scope: entries about members of these groups alone. */
export function auditScopeOf(account: Pick<ConsoleAccount, 'role' | 'scope'>): {
  userInGroups?: readonly string[];
} {
  const scope = scopeOf(account);
  return scope === null ? {} : { userInGroups: scope };
}

/** Whether two scopes are the same groups in the same order (null: none). */
export const sameScope = (a: readonly string[] | null, b: readonly string[] | null): boolean =>
  JSON.stringify(a) === JSON.stringify(b);
