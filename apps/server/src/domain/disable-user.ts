import type { Store } from '../store/store.js';
import { revokeCodesIfSwitchedOff } from './codes-switched-off.js';

/**
 * Disables a user: no sign-in, no codes, every verification fails; every session ends at once
 * and every unused code is revoked (so that none works again if the user is enabled).
 * The one rule for the CLI, the directory and every other source. Answers the sessions ended.
 */
export async function disableUser(
  store: Store,
  userId: string,
  actor: string,
  at: number,
  details: Record<string, unknown> = {},
): Promise<number> {
  await store.users.update(userId, { disabled: true });
  const sessionsEnded = await store.sessions.endAllOfUser(userId, at);
  await store.audit.append(
    { event: 'user.disabled', userId, actor, details: { ...details, sessionsEnded } },
    at,
  );
  await revokeCodesIfSwitchedOff(store, [userId], { actor, at, cause: 'user disabled' });
  return sessionsEnded;
}
