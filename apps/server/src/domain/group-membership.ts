import type { Group, Store } from '../store/store.js';
import { revokeCodesIfSwitchedOff } from './codes-switched-off.js';

/**
 * A user joins or leaves a group, audited with who did it; the one rule for the CLI, the
 * directory, the import and SCIM. When the change leaves the user's policy without codes, their
 * unused codes are revoked. Answers whether anything changed.
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
  await revokeCodesIfSwitchedOff(store, [userId], {
    actor: audit.actor,
    at: audit.at,
    cause: 'membership changed',
    details: { group: group.name },
  });
  return true;
}
