import type { Group, Store } from '../store/store.js';

/**
 * A user joins or leaves a group, audited with who did it; the one rule for the directory, the
 * import and SCIM. Answers whether anything changed.
 */
export async function changeMembership(
  store: Store,
  change: { group: Group; userId: string; member: boolean },
  audit: { actor: string; at: number; details?: Record<string, unknown> },
): Promise<boolean> {
  const { group, userId, member } = change;
  // The store's answer decides, so that of two writers at once only one audits the change.
  const changed = member
    ? await store.groups.addMember(group.id, userId)
    : await store.groups.removeMember(group.id, userId);
  if (!changed) return false;
  await store.audit.append(
    {
      event: member ? 'group.member_added' : 'group.member_removed',
      userId,
      actor: audit.actor,
      details: { ...audit.details, group: group.name },
    },
    audit.at,
  );
  return true;
}
