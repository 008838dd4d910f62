import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { PURGE_KINDS, type PurgeCutoffs, type PurgeKind, type Store } from '../../store/store.js';
import type { SecretKeys } from '../../crypto/secret-keys.js';
import { prepareAuditPurge } from '../audit/audit-trail.js';
import { REGISTRATION_OIDC_FLOW_MS } from '../registration/registration-oidc.js';
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
  /** The audit export's destinations, whose positions bound what the purge removes. */
  auditDestinations: readonly string[];
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
    linksBefore: now - grace,
    registrationOidcFlowsBefore: now - REGISTRATION_OIDC_FLOW_MS - grace,
  };
}

/** What a purge would remove now (`dea purge --dry-run`); changes nothing. */
export async function purgeableRows(
  store: Store,
  rules: RetentionRules,
  now: number,
  kinds: readonly PurgeKind[] = PURGE_KINDS,
  keys?: SecretKeys,
): Promise<Partial<PurgeCounts>> {
  const cutoffs = await auditBounded(store, rules, purgeCutoffs(rules, now), keys, kinds);
  const counts: Partial<PurgeCounts> = {};
  for (const kind of kinds) counts[kind] = await store.retention.count(kind, cutoffs);
  return counts;
}

/**
 * The cutoffs with the audit trail's bound: audit entries go only as far as a signed checkpoint
 * covers (none without the keys to sign one) and every export destination has received.
 */
async function auditBounded(
  store: Store,
  rules: RetentionRules,
  cutoffs: PurgeCutoffs,
  keys: SecretKeys | undefined,
  kinds: readonly PurgeKind[],
): Promise<PurgeCutoffs> {
  if (cutoffs.auditBefore === null || !kinds.includes('audit')) return cutoffs;
  const auditThroughSeq =
    keys === undefined
      ? 0
      : await prepareAuditPurge(store, keys, {
          before: cutoffs.auditBefore,
          destinations: rules.auditDestinations,
          unexported: rules.retention.auditUnexported,
          now: cutoffs.now,
        });
  return { ...cutoffs, auditThroughSeq };
}

export type PurgeOutcome =
  | { ran: true; removed: Partial<PurgeCounts>; stopped: boolean }
  | { ran: false; holder: string; until: number };

/**
 * How long the purge waits after a batch that kept it busy `busyMs`, so that it works at most
 * `busyPercent` of the time and the requests beside it keep the store the rest of it.
 */
export function pauseAfterBatch(busyMs: number, busyPercent: number): number {
  return (busyMs * (100 - busyPercent)) / busyPercent;
}

/** Waits `ms`, or until `signal` aborts; at 0 only lets the requests already waiting go first. */
export function pauseFor(ms: number, signal?: AbortSignal): Promise<unknown> {
  if (ms <= 0) return nextTurn();
  return sleep(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
}

/**
 * The retention purge: every kind in batches of `retention.batchSize` rows, each its own short
 * statement, while holding the purge lease (renewed with each batch), so instances sharing a store
 * never purge at once. After each batch it pauses so as to be busy at most
 * `retention.busyPercent` of the time: under load, a purge of millions of rows otherwise takes the
 * store from the requests for as long as it runs. `signal` stops it between two batches (shutdown).
 * An audit entry `store.purged` records what went, when anything did.
 */
export async function purgeStore(
  store: Store,
  rules: RetentionRules,
  options: {
    now: () => number;
    holder: string;
    actor: string;
    kinds?: readonly PurgeKind[];
    /** The keys that seal the audit trail and sign the purge's checkpoint; without them no audit entry goes. */
    keys?: SecretKeys;
    signal?: AbortSignal;
    /** How the purge waits between batches, cut short by `signal` (tests record it). */
    pause?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
    /** The monotonic clock a batch's busy time is read on, in ms (tests advance their own). */
    elapsed?: () => number;
  },
): Promise<PurgeOutcome> {
  const { now, holder, signal } = options;
  const pause = options.pause ?? pauseFor;
  const elapsed = options.elapsed ?? (() => performance.now());
  const hold = (): Promise<boolean> => {
    const at = now();
    return store.leases.take(PURGE_LEASE, holder, at, at + PURGE_LEASE_MS);
  };
  if (!(await hold())) {
    const lease = await store.leases.find(PURGE_LEASE);
    return { ran: false, holder: lease?.holder ?? 'unknown', until: lease?.until ?? now() };
  }
  const removed: Partial<PurgeCounts> = {};
  let stopped = false;
  try {
    const cutoffs = await auditBounded(
      store,
      rules,
      purgeCutoffs(rules, now()),
      options.keys,
      options.kinds ?? PURGE_KINDS,
    );
    const { batchSize, busyPercent } = rules.retention;
    for (const kind of options.kinds ?? PURGE_KINDS) {
      let total = 0;
      for (;;) {
        const started = elapsed();
        const count = await store.retention.removeBatch(kind, cutoffs, batchSize);
        total += count;
        if (count < batchSize) break;
        // Lost the lease (this purge outran PURGE_LEASE_MS between batches): another may go on.
        if (!(await hold())) break;
        await pause(pauseAfterBatch(elapsed() - started, busyPercent), signal);
        if (signal?.aborted === true) {
          stopped = true;
          break;
        }
      }
      removed[kind] = total;
      if (stopped) break;
    }
  } finally {
    await store.leases.release(PURGE_LEASE, holder);
  }
  if (Object.values(removed).some((count) => count > 0)) {
    await store.audit.append({ event: 'store.purged', actor: options.actor, details: { removed } }, now());
  }
  return { ran: true, removed, stopped };
}

/**
 * The purges an instance starts on its timer. Never two at once: a purge paced beside a heavy
 * load can outlast DEA_PURGE_INTERVAL_SECONDS. At shutdown the one under way stops after its
 * current batch, while the store is still open.
 */
export class PurgeSchedule {
  private running: Promise<PurgeOutcome> | undefined;
  private readonly stopping = new AbortController();

  constructor(private readonly purge: (signal: AbortSignal) => Promise<PurgeOutcome>) {}

  /** Starts a purge; undefined while the last one is still under way, or after stop(). */
  start(): Promise<PurgeOutcome> | undefined {
    if (this.running !== undefined || this.stopping.signal.aborted) return undefined;
    const run = this.purge(this.stopping.signal).finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  /** Starts no other purge, and resolves once the one under way has stopped. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running?.catch(() => undefined);
  }
}

/**
 * The rules of a configuration (the server's and the CLI's). `auditDestinations` names the audit
 * export's destinations, the webhooks' among them (audit-export/audit-export-settings.ts
 * `exportDestinationsOf`): an entry goes only once each of them received it.
 */
export function retentionRulesOf(
  config: {
    retention: RetentionConfig;
    sessionIdleMs: number;
    sessionAbsoluteMs: number;
    console: { idleMs: number };
    signin: { windowMs: number };
  },
  auditDestinations: readonly string[],
): RetentionRules {
  return {
    retention: config.retention,
    sessionIdleMs: config.sessionIdleMs,
    sessionAbsoluteMs: config.sessionAbsoluteMs,
    consoleIdleMs: config.console.idleMs,
    signinWindowMs: config.signin.windowMs,
    auditDestinations,
  };
}
