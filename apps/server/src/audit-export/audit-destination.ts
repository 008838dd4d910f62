import type { BackoffPolicy } from '../net/backoff.js';
import type { AuditRecord } from './audit-record.js';

/** syslog, https and file (DEA_AUDIT_*), and one per webhook event (DEA_WEBHOOKS): `webhook:code.used`. */
export type DestinationName = 'syslog' | 'https' | 'file' | `webhook:${string}`;

/**
 * A send that failed part way: the first `delivered` records of the batch were received (the
 * export keeps its position after them), the rest wait; `retryAfterMs` is what the receiver asked
 * for (Retry-After), if it did.
 */
export class DestinationFailure extends Error {
  constructor(
    message: string,
    readonly delivered: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * One place audit entries go. The audit export (audit-export.ts) reads what the destination has
 * not received from the store, in the trail's order, and hands it over in batches; a subclass
 * says how a batch is sent, whole or not at all (or, with a DestinationFailure, how much of it).
 */
export abstract class AuditDestination {
  protected constructor(
    readonly name: DestinationName,
    /** Entries per batch at most. */
    readonly batchSize: number,
    /** How long the oldest entry may wait for a batch to fill; 0: sent as they come. */
    readonly lingerMs: number,
    /** How a failing destination is retried; the export's own when undefined. */
    readonly retry?: BackoffPolicy,
    /**
     * Where a destination the store has never seen begins: at the start of the trail (a SIEM
     * gets the whole of it), or after its last entry (a webhook tells what happens from now on).
     */
    readonly begins: 'at-start' | 'at-end' = 'at-start',
  ) {}

  /** Sends the batch whole, or throws (an Error whose message names the cause and the setting). */
  abstract send(records: readonly AuditRecord[]): Promise<void>;

  /** Frees what the destination holds (a connection, a file). */
  abstract release(): Promise<void>;
}
