import type { Services } from '../services.js';
import type { SyncSummary } from './directory-users.js';
import { DIRECTORY_ACTOR } from './directory-users.js';
import { auditSync, logSyncProblems, type SyncLog } from './sync-report.js';

/** The counter that lets one instance of all sharing the store sync per interval. */
const SYNC_TURN = 'directory:sync';

/**
 * The background sync of DEA_LDAP_SYNC_MINUTES: every instance asks each interval, and the one
 * that takes the interval's turn (an atomic counter in the store) syncs; the others skip.
 * Answers the summary, or undefined when there is no directory or another instance has the turn.
 */
export async function runScheduledSync(services: Services, log?: SyncLog): Promise<SyncSummary | undefined> {
  const { directoryUsers, config, store } = services;
  const directory = config.directory;
  if (directoryUsers === undefined || directory === undefined || directory.syncMs === 0) return undefined;
  // A turn a little shorter than the interval, so the next tick of the same instance finds it free.
  const windowMs = Math.max(1000, directory.syncMs - 5000);
  const turn = await store.rateCounters.take([{ subject: SYNC_TURN, max: 1, windowMs }], services.now());
  if (!turn.allowed) return undefined;
  const summary = await directoryUsers.syncAll();
  if (log !== undefined) logSyncProblems(log, summary, directory.syncLogUsers);
  await auditSync(store, summary, DIRECTORY_ACTOR, services.now());
  return summary;
}
