import type { Store } from '../store/store.js';

/**
 * Disables a user: no sign-in, no codes, every verification fails; every session ends at once.
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
  return sessionsEnded;
}
