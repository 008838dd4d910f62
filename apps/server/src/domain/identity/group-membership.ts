import type { Group, Store, UserSource } from '../../store/store.js';
import { Groups } from './groups.js';

/**
 * A user joins or leaves a group through the groups module (identity/groups.ts): the ownership
 * of the group checked for the source (`by`, an operator's 'local' unless said), written with its
 * audit entry in one transaction, the user's unused codes revoked when this switches them off.
 * Kept for the callers that change one membership at a time. Answers whether anything changed.
 */
export async function changeMembership(
  store: Store,
  change: { group: Group; userId: string; member: boolean; by?: UserSource },
  audit: { actor: string; at: number; details?: Record<string, unknown> },
): Promise<boolean> {
  return new Groups(store, () => audit.at).changeMember(change.group, change.userId, change.member, {
    by: change.by ?? 'local',
    actor: audit.actor,
    ...(audit.details !== undefined && { details: audit.details }),
  });
}
