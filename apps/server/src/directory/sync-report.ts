import type { Store } from '../store/store.js';
import type { SyncSummary } from './directory-users.js';

/** What a sync logs with: pino's warn (an object, then the message). */
export interface SyncLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Each user a sync could not write or left out, one JSON line at warn saying who and why, at most
 * `limit` of them; then one line with how many more there were (the CLI prints them all).
 */
export function logSyncProblems(log: SyncLog, summary: SyncSummary, limit: number): void {
  const lines: [Record<string, unknown>, string][] = [
    ...summary.failed.map(({ username, reason }): [Record<string, unknown>, string] => [
      { user: username, reason },
      'directory sync: a user could not be written',
    ]),
    ...summary.skipped.map(({ dn, reason }): [Record<string, unknown>, string] => [
      { dn, reason },
      'directory sync: an entry of DEA_LDAP_USER_FILTER was left out',
    ]),
    ...summary.warnings.map(({ username, warning }): [Record<string, unknown>, string] => [
      { user: username, reason: warning },
      'directory sync: part of a user was left out',
    ]),
  ];
  for (const [fields, message] of lines.slice(0, limit)) log.warn(fields, message);
  if (lines.length > limit)
    log.warn(
      { more: lines.length - limit },
      `directory sync: ${lines.length - limit} more users failed or were left out (DEA_LDAP_SYNC_LOG_USERS names at most ${limit}; dea directory sync prints them all)`,
    );
}

/** The audit entry of a finished sync (`directory.synced`), by `actor`: the directory's schedule or cli. */
export async function auditSync(
  store: Store,
  summary: SyncSummary,
  actor: string,
  at: number,
): Promise<void> {
  const { created, updated, disabled, unchanged, failed, skipped, full } = summary;
  await store.audit.append(
    {
      event: 'directory.synced',
      actor,
      details: {
        created,
        updated,
        disabled,
        unchanged,
        failed: failed.length,
        skipped: skipped.length,
        full,
      },
    },
    at,
  );
}
