import { describe } from 'vitest';
import { storeTest } from '../testing/fixtures.js';
import { STORE_KINDS, type StoreKind } from '../testing/stores.js';
import { auditSuite } from './suite/audit.suite.js';
import { brandingSuite } from './suite/branding.suite.js';
import { catalogsSuite } from './suite/catalogs.suite.js';
import { channelsSuite } from './suite/channels.suite.js';
import { codesSuite } from './suite/codes.suite.js';
import { concurrencySuite } from './suite/concurrency.suite.js';
import { consoleSuite } from './suite/console.suite.js';
import { groupsSuite } from './suite/groups.suite.js';
import { helpDeskReadsSuite } from './suite/help-desk-reads.suite.js';
import { lifecycleSuite } from './suite/lifecycle.suite.js';
import { metaSuite } from './suite/meta.suite.js';
import { outboxSuite } from './suite/outbox.suite.js';
import { retentionSuite } from './suite/retention.suite.js';
import { serviceKeysSuite } from './suite/service-keys.suite.js';
import { sessionsSuite } from './suite/sessions.suite.js';
import { usersSuite } from './suite/users.suite.js';

/**
 * The one contract test suite of the store, a file per repository in `suite/`. Every
 * implementation (the embedded SQLite file and PostgreSQL) must pass it unchanged. Each test gets a
 * fresh, migrated store of its own (the `testStore` fixture), so the tests run concurrently to keep
 * the suite fast.
 */
const SUITES: readonly ((kind: StoreKind) => void)[] = [
  lifecycleSuite,
  helpDeskReadsSuite,
  consoleSuite,
  usersSuite,
  groupsSuite,
  channelsSuite,
  codesSuite,
  concurrencySuite,
  sessionsSuite,
  retentionSuite,
  brandingSuite,
  catalogsSuite,
  auditSuite,
  outboxSuite,
  serviceKeysSuite,
  metaSuite,
];

for (const kind of STORE_KINDS)
  describe(`store on ${kind}`, () => {
    storeTest.override('storeKind', kind);
    for (const suite of SUITES) suite(kind);
  });
