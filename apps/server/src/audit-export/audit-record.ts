import type { SealedAuditEntry } from '../store/store.js';

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

export function auditRecordOf(entry: SealedAuditEntry, host: string): AuditRecord {
  return {
    id: entry.id,
    at: new Date(entry.at).toISOString(),
    event: entry.event,
    userId: entry.userId,
    actor: entry.actor,
    clientAddress: entry.clientAddress,
    details: entry.details,
    seq: entry.seq,
    chain: entry.chain,
    host,
  };
}

/** JSON with every character beyond ASCII escaped: valid in a syslog MSG and in any log file. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
