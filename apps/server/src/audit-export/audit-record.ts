import type { SealedAuditEntry } from '../store/store.js';
import type { AuditRecord } from '../domain/ports/audit-destination.js';

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
