import { newId } from '../crypto/ids.js';
import type { NewAuditEntry, PurgeKind, Store } from '../store/store.js';
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
  return observing(store, {
    codeIssued: (channelType, entry, at) => {
      metrics.codeIssued(channelType);
      tell(entry, at);
    },
    audited: (entry, at) => {
      metrics.auditEvent(entry);
      tell(entry, at);
    },
    rowsPurged: (kind, removed) => metrics.rowsPurged(kind, removed),
  });
}

interface Observer {
  codeIssued(channelType: string | null, entry: NewAuditEntry & { id: string }, at: number): void;
  audited(entry: NewAuditEntry & { id: string }, at: number): void;
  rowsPurged(kind: PurgeKind, removed: number): void;
}

function observing(store: Store, observer: Observer): Store {
  // The entry's id is made here, so that what listeners pass on names the stored entry.
  const withId = (entry: NewAuditEntry, at: number) => ({ ...entry, id: entry.id ?? newId(at) });
  const { codes, audit, retention, groups } = store;
  return {
    ...store,
    groups: {
      ...groups,
      async write(writes, at) {
        const entries = writes.map(({ change, audit: audited }) => ({
          change,
          audit: audited === undefined ? undefined : withId(audited, at),
        }));
        const changed = await groups.write(entries, at);
        entries.forEach(({ audit: entry }, index) => {
          if (changed[index] === true && entry !== undefined) observer.audited(entry, at);
        });
        return changed;
      },
    },
    codes: {
      ...codes,
      async issue(code, maxUnused, audited) {
        const entry = withId(audited, code.createdAt);
        const outcome = await codes.issue(code, maxUnused, entry);
        if (outcome.issued) observer.codeIssued(code.channelType, entry, code.createdAt);
        return outcome;
      },
      async verify(call) {
        const answer = await codes.verify(call);
        for (const entry of answer.entries) observer.audited(entry, call.now);
        return answer;
      },
    },
    retention: {
      ...retention,
      async removeBatch(kind, cutoffs, limit) {
        const removed = await retention.removeBatch(kind, cutoffs, limit);
        observer.rowsPurged(kind, removed);
        return removed;
      },
    },
    audit: {
      ...audit,
      async append(audited, at) {
        const entry = withId(audited, at);
        await audit.append(entry, at);
        observer.audited(entry, at);
      },
    },
    // What a transaction wrote is counted and told once it is committed; nothing of one rolled back.
    async transaction(work) {
      const committed: (() => void)[] = [];
      const result = await store.transaction((inner) =>
        work(
          observing(inner, {
            codeIssued: (...args) => committed.push(() => observer.codeIssued(...args)),
            audited: (...args) => committed.push(() => observer.audited(...args)),
            rowsPurged: (...args) => committed.push(() => observer.rowsPurged(...args)),
          }),
        ),
      );
      for (const tell of committed) tell();
      return result;
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
