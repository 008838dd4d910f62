import type { Store } from '../store/store.js';
import type { Metrics } from './metrics.js';

/**
 * The store, with metrics counted as codes are issued and audit entries written. Decorating the
 * store keeps routes and domain rules free of instrumentation.
 */
export function observedStore(store: Store, metrics: Metrics): Store {
  const { codes, audit } = store;
  return {
    ...store,
    codes: {
      ...codes,
      async issue(code, maxUnused, entry) {
        const outcome = await codes.issue(code, maxUnused, entry);
        if (outcome.issued) metrics.codeIssued(code.channelType);
        return outcome;
      },
    },
    audit: {
      ...audit,
      async append(entry, at) {
        await audit.append(entry, at);
        metrics.auditEvent(entry);
      },
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
