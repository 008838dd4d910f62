import { newId } from '../crypto/ids.js';
import type { NewAuditEntry, Store } from '../store/store.js';
import type { Metrics } from './metrics.js';

/** Told of every audit entry once it is written (the audit export, which feeds the webhooks too); must neither throw nor wait. */
export type AuditListener = (entry: NewAuditEntry & { id: string }, at: number) => void;

/**
 * The store, with metrics counted as codes are issued, audit entries written and rows purged, and
 * the listeners told. Decorating the store keeps routes and domain rules free of instrumentation.
 */
export function observedStore(
  store: Store,
  metrics: Metrics,
  listeners: readonly AuditListener[] = [],
): Store {
  const tell = (entry: NewAuditEntry & { id: string }, at: number): void => {
    for (const listener of listeners) listener(entry, at);
  };
  // The entry's id is made here, so that what listeners pass on names the stored entry.
  const withId = (entry: NewAuditEntry, at: number) => ({ ...entry, id: entry.id ?? newId(at) });
  const { codes, audit, retention, groups } = store;
  return {
    ...store,
    groups: {
      ...groups,
      async write(writes, at) {
        const entries = writes.map(({ change, audit: audited }) => ({ change, audit: withId(audited, at) }));
        const changed = await groups.write(entries, at);
        entries.forEach(({ audit: entry }, index) => {
          if (changed[index] !== true) return;
          metrics.auditEvent(entry);
          tell(entry, at);
        });
        return changed;
      },
    },
    codes: {
      ...codes,
      async issue(code, maxUnused, audited) {
        const entry = withId(audited, code.createdAt);
        const outcome = await codes.issue(code, maxUnused, entry);
        if (outcome.issued) {
          metrics.codeIssued(code.channelType);
          tell(entry, code.createdAt);
        }
        return outcome;
      },
    },
    retention: {
      ...retention,
      async removeBatch(kind, cutoffs, limit) {
        const removed = await retention.removeBatch(kind, cutoffs, limit);
        metrics.rowsPurged(kind, removed);
        return removed;
      },
    },
    audit: {
      ...audit,
      async append(audited, at) {
        const entry = withId(audited, at);
        await audit.append(entry, at);
        metrics.auditEvent(entry);
        tell(entry, at);
      },
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
