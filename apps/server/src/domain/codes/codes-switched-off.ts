import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import type { Store } from '../../store/store.js';
import { codesEnabled } from '../policies/policy.js';

/** What switched a user's codes off, for the audit entry. */
export type SwitchedOffCause = 'user disabled' | 'policy set' | 'membership changed';

/**
 * A user whose codes are switched off holds no unused code: a code refused while they were off
 * would otherwise verify again once they are switched back on. Off means disabled, or an effective
 * "Self Service" policy (of their highest-priority group that has one) without enableECode, or no
 * such policy at all. The one rule that every change which may switch codes off reaches after it
 * is written: disabling a user (identity/people.ts), a group's policy (group-policies.ts: the CLI and
 * the console), a membership (identity/groups.ts: the CLI, the directory, the import and SCIM).
 * Each user whose codes were taken back gets one audit entry. Answers how many codes were revoked.
 */
export async function revokeCodesIfSwitchedOff(
  store: Store,
  userIds: Iterable<string>,
  audit: { actor: string; at: number; cause: SwitchedOffCause; details?: Record<string, unknown> },
): Promise<number> {
  let revoked = 0;
  for (const userId of new Set(userIds)) {
    if (await codesSwitchedOn(store, userId)) continue;
    const codeIds: string[] = [];
    for (const code of await store.codes.listActive(userId, audit.at)) {
      // Of two writers at once, each code is taken back (and audited) by one only.
      if (await store.codes.invalidate(code.id, audit.at)) codeIds.push(code.id);
    }
    if (codeIds.length === 0) continue;
    revoked += codeIds.length;
    await store.audit.append(
      {
        event: 'codes.switched_off',
        userId,
        actor: audit.actor,
        details: { ...audit.details, cause: audit.cause, codeIds },
      },
      audit.at,
    );
  }
  return revoked;
}

async function codesSwitchedOn(store: Store, userId: string): Promise<boolean> {
  const user = await store.users.findById(userId);
  if (user === undefined || user.disabled) return false;
  return codesEnabled(await store.groups.findPolicyOfUser(userId, POLICY_CATEGORY_SELF_SERVICE));
}
