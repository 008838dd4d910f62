import type { AuditRecord } from '../domain/ports/audit-destination.js';
import { asciiJson } from './audit-record.js';

/**
 * The SD-ID of the structured data. 32473 is the enterprise number RFC 5612 reserves for
 * documentation; a deployment filters on the SD-ID's name, "dea".
 */
export const SD_ID = 'dea@32473';
const APP_NAME = 'dea';

/** Warning (4) for what an operator may have to act on; informational (6) for the rest. */
export function severityOf(event: string): number {
  return /failed|locked|lockout|refused|busy|unavailable|abandoned/.test(event) ? 4 : 6;
}

/** A PARAM-VALUE: `"`, `\` and `]` escaped (RFC 5424 section 6.3.3). */
const paramValue = (value: string): string => value.replace(/["\\\]]/g, (character) => `\\${character}`);

/** PRINTUSASCII without spaces, at most `max` characters; "-" when empty. */
function header(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '_').slice(0, max);
  return printable === '' ? '-' : printable;
}

/**
 * One audit entry as an RFC 5424 message: MSGID is the event, the structured data names the entry
 * (id, event, user, actor, client address) for filters, and the MSG is the whole record as JSON.
 */
export function syslogMessage(record: AuditRecord, facility: number, procId: number): string {
  const fields: [string, string | null][] = [
    ['id', record.id],
    ['event', record.event],
    ['userId', record.userId],
    ['actor', record.actor],
    ['clientAddress', record.clientAddress],
  ];
  const params = fields
    .flatMap(([name, value]) => (value === null ? [] : [`${name}="${paramValue(value)}"`]))
    .join(' ');
  const priority = facility * 8 + severityOf(record.event);
  return `<${priority}>1 ${record.at} ${header(record.host, 255)} ${APP_NAME} ${procId} ${header(record.event, 32)} [${SD_ID} ${params}] ${asciiJson(record)}`;
}

/** Octet-counting framing of TCP and TLS transports (RFC 6587 section 3.4.1, RFC 5425 section 4.3). */
export function octetCounted(message: string): string {
  return `${Buffer.byteLength(message)} ${message}`;
}
