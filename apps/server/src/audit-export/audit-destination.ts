import type { AuditRecord } from './audit-record.js';

export type DestinationName = 'syslog' | 'https' | 'file';

/**
 * One place audit entries go. The audit export (audit-export.ts) reads what the destination has
 * not received from the store, in the trail's order, and hands it over in batches; a subclass
 * says how a batch is sent, whole or not at all.
 */
export abstract class AuditDestination {
  protected constructor(
    readonly name: DestinationName,
    /** Entries per batch at most. */
    readonly batchSize: number,
    /** How long the oldest entry may wait for a batch to fill; 0: sent as they come. */
    readonly lingerMs: number,
  ) {}

  /** Sends the batch whole, or throws (an Error whose message names the cause and the setting). */
  abstract send(records: readonly AuditRecord[]): Promise<void>;

  /** Frees what the destination holds (a connection, a file). */
  abstract release(): Promise<void>;
}
