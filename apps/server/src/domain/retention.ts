import { PURGE_KINDS, type PurgeCutoffs, type PurgeKind, type Store } from '../store/store.js';
import type { RetentionConfig } from './retention-settings.js';

/** The lease that lets one instance (or one `dea purge`) purge at a time. */
export const PURGE_LEASE = 'purge';
/** A purge holds the lease this long past its last batch: a crashed purger frees it by then. */
export const PURGE_LEASE_MS = 5 * 60_000;

export type PurgeCounts = Record<PurgeKind, number>;

export interface RetentionRules {
  retention: RetentionConfig;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  consoleIdleMs: number;
  signinWindowMs: number;
}

/** When each kind of row may go, as of `now`. */
export function purgeCutoffs(rules: RetentionRules, now: number): PurgeCutoffs {
  const grace = rules.retention.sessionGraceMs;
  return {
    now,
    sessionsEndedBefore: now - grace,
    sessionsLastSeenBefore: now - rules.sessionIdleMs - grace,
    sessionsStartedBefore: now - rules.sessionAbsoluteMs - grace,
    consoleSessionsEndedBefore: now - grace,
    consoleSessionsLastSeenBefore: now - rules.consoleIdleMs - grace,
    signinFailuresBefore: now - rules.signinWindowMs,
    auditBefore: rules.retention.auditMs === null ? null : now - rules.retention.auditMs,
    outboxBefore: rules.retention.outboxMs === null ? null : now - rules.retention.outboxMs,
  };
}

/** What a purge would remove now (`dea purge --dry-run`); changes nothing. */
export async function purgeableRows(
  store: Store,
  rules: RetentionRules,
  now: number,
  kinds: readonly PurgeKind[] = PURGE_KINDS,
): Promise<Partial<PurgeCounts>> {
  const cutoffs = purgeCutoffs(rules, now);
  const counts: Partial<PurgeCounts> = {};
  for (const kind of kinds) counts[kind] = await store.retention.count(kind, cutoffs);
  return counts;
}

export type PurgeOutcome =
  { ran: true; removed: Partial<PurgeCounts> } | { ran: false; holder: string; until: number };

/**
 * The retention purge: every kind in batches of `retention.batchSize` rows, each its own short
 * statement, while holding the purge lease (renewed with each batch), so instances sharing a store
 * never purge at once. An audit entry `store.purged` records what went, when anything did.
 */
export async function purgeStore(
  store: Store,
  rules: RetentionRules,
  options: { now: () => number; holder: string; actor: string; kinds?: readonly PurgeKind[] },
): Promise<PurgeOutcome> {
  const { now, holder } = options;
  const hold = (): Promise<boolean> => {
    const at = now();
    return store.leases.take(PURGE_LEASE, holder, at, at + PURGE_LEASE_MS);
  };
  if (!(await hold())) {
    const lease = await store.leases.find(PURGE_LEASE);
    return { ran: false, holder: lease?.holder ?? 'unknown', until: lease?.until ?? now() };
  }
  const removed: Partial<PurgeCounts> = {};
  try {
    const cutoffs = purgeCutoffs(rules, now());
    const { batchSize } = rules.retention;
    for (const kind of options.kinds ?? PURGE_KINDS) {
      let total = 0;
      for (;;) {
        const count = await store.retention.removeBatch(kind, cutoffs, batchSize);
        total += count;
        if (count < batchSize) break;
        // Lost the lease (this purge outran PURGE_LEASE_MS between batches): another may go on.
        if (!(await hold())) break;
        // Let the requests waiting for the store in between.
        await new Promise((resolve) => setImmediate(resolve));
      }
      removed[kind] = total;
    }
  } finally {
    await store.leases.release(PURGE_LEASE, holder);
  }
  if (Object.values(removed).some((count) => count > 0)) {
    await store.audit.append({ event: 'store.purged', actor: options.actor, details: { removed } }, now());
  }
  return { ran: true, removed };
}

/** The rules of a configuration (the server's and the CLI's). */
export function retentionRulesOf(config: {
  retention: RetentionConfig;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  console: { idleMs: number };
  signin: { windowMs: number };
}): RetentionRules {
  return {
    retention: config.retention,
    sessionIdleMs: config.sessionIdleMs,
    sessionAbsoluteMs: config.sessionAbsoluteMs,
    consoleIdleMs: config.console.idleMs,
    signinWindowMs: config.signin.windowMs,
  };
}
