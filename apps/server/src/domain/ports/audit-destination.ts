import type { BackoffPolicy } from '../../net/backoff.js';

/**
 * An audit entry as it leaves the server, the same for every destination: what the audit log
 * holds (never a code, a password or a full address: the audit rule), with its id so that a
 * receiver can drop an entry it got twice (a batch retried after its answer was lost).
 */
export interface AuditRecord {
  id: string;
  at: string;
  event: string;
  userId: string | null;
  actor: string | null;
  clientAddress: string | null;
  details: Record<string, unknown>;
  /** The entry's place in the audit trail: each destination receives them in this order. */
  seq: number;
  /**
   * The entry's chain value (base64url HMAC-SHA256 over the previous entry's chain value and this
   * entry, ADR 0018): a receiver that keeps them sees a gap or a rewrite of the stored trail.
   */
  chain: string;
  /** The host of the instance that exported it. */
  host: string;
  /**
   * On the last record of each batch sent to syslog, HTTPS or the file: the trail's head as far as
   * this copy goes, signed under the server secret's chain key (ADR 0032). `dea audit verify
   * --anchor` checks the stored trail against the furthest one, so that its end cannot be cut unseen.
   */
  head?: {
    seq: number;
    chain: string;
    /** When it was sent (milliseconds since 1970). */
    at: number;
    /** The fingerprint of the secret whose key signed it. */
    key: string;
    mac: string;
  };
}

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
 * One place audit entries go: a port the domain owns, implemented by the audit export's
 * destinations (audit-export/) and the webhooks (webhooks/). The audit export reads what the destination has
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
