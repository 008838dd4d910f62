import type { PurgeCutoffs } from '../store/store.js';

/** Purge cutoffs at `now` that keep every session, sign-in failure, audit entry and outbox message, unless overridden. */
export function cutoffsAt(now: number, overrides: Partial<PurgeCutoffs> = {}): PurgeCutoffs {
  return {
    now,
    sessionsEndedBefore: 0,
    sessionsLastSeenBefore: 0,
    sessionsStartedBefore: 0,
    consoleSessionsEndedBefore: 0,
    consoleSessionsLastSeenBefore: 0,
    signinFailuresBefore: 0,
    auditBefore: null,
    outboxBefore: null,
    linksBefore: 0,
    registrationOidcFlowsBefore: 0,
    ...overrides,
  };
}
