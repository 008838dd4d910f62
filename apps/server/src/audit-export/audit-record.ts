import type { NewAuditEntry } from '../store/store.js';

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
  /** The host of the instance that wrote it. */
  host: string;
}

export function auditRecordOf(entry: NewAuditEntry & { id: string }, at: number, host: string): AuditRecord {
  return {
    id: entry.id,
    at: new Date(at).toISOString(),
    event: entry.event,
    userId: entry.userId ?? null,
    actor: entry.actor ?? null,
    clientAddress: entry.clientAddress ?? null,
    details: entry.details ?? {},
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
