import { composeDomain } from '../composition.js';
import { Metrics } from '../observability/metrics.js';
import { ensureBuiltInContent } from '../seed/built-in-content.js';
import type { Store } from '../store/store.js';
import { TEST_STORE_KEYS } from './stores.js';
import { testClock, testConfig } from './test-app.js';
import { RequestTurns } from '../domain/bulkheads.js';

/**
 * What the domain's tests of sending, channels and registration share: every use case over a
 * test's store with the built-in languages, composed as the server composes it (composition.ts)
 * with these settings, on a clock the test moves (from `start`, else the test apps' start);
 * codes and messages go to the outbox.
 */
export async function composedDomain(store: Store, settings: Record<string, string> = {}, start?: number) {
  await ensureBuiltInContent(store);
  const clock = testClock(start);
  const services = composeDomain({
    config: testConfig(settings),
    store,
    keys: TEST_STORE_KEYS,
    now: clock.now,
    log: { warn: () => undefined, info: () => undefined },
    metrics: new Metrics(),
    auditExport: undefined,
    requestTurns: new RequestTurns(),
    decoyPasswordHash: () => Promise.resolve(''),
  });
  return { services, clock };
}
