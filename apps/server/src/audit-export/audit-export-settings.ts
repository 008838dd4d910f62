import Type from 'typebox';
import { readCaFile } from '../files/ca-file.js';
import type { SettingValues } from '../setting-values.js';

/** Syslog facilities by name (RFC 5424 section 6.2.1), as rsyslog and syslog-ng name them. */
export const SYSLOG_FACILITIES = {
  auth: 4,
  daemon: 3,
  authpriv: 10,
  local0: 16,
  local1: 17,
  local2: 18,
  local3: 19,
  local4: 20,
  local5: 21,
  local6: 22,
  local7: 23,
} as const;
export type SyslogFacility = keyof typeof SYSLOG_FACILITIES;

/** Where every audit entry of the store also goes, in order and at least once: syslog, an HTTPS endpoint, a JSON lines file. */
export const auditExportSettings = {
  DEA_AUDIT_SYSLOG: {
    schema: Type.String({ default: '' }),
    doc: 'Syslog server that receives every audit entry as an RFC 5424 message with structured data: udp://host:514, tcp://host:601 or tls://host:6514 (octet-counted framing over TCP and TLS, RFC 6587 and 5425). Empty: none.',
  },
  DEA_AUDIT_SYSLOG_FACILITY: {
    schema: Type.Union(
      Object.keys(SYSLOG_FACILITIES).map((name) => Type.Literal(name)),
      { default: 'authpriv' },
    ),
    doc: `Facility of the syslog messages: ${Object.keys(SYSLOG_FACILITIES).join(', ')}.`,
  },
  DEA_AUDIT_SYSLOG_CA_FILE: {
    schema: Type.String({ default: '' }),
    doc: "PEM file of the certificate authorities a tls:// syslog server's certificate may chain to, besides the system's.",
  },
  DEA_AUDIT_HTTPS_URL: {
    schema: Type.String({ default: '' }),
    doc: 'HTTPS endpoint that receives the audit entries in batches: POST {"entries":[...]} as JSON, signed as Standard Webhooks describes (webhook-id, webhook-timestamp, webhook-signature) with DEA_AUDIT_HTTPS_SECRET, retried until a 2xx answer. Empty: none.',
  },
  DEA_AUDIT_HTTPS_SECRET: {
    schema: Type.String({ default: '' }),
    doc: 'Signing secret of the audit batches: whsec_ and at least 24 random bytes in base64 (never logged). Required with DEA_AUDIT_HTTPS_URL.',
  },
  DEA_AUDIT_HTTPS_CA_FILE: {
    schema: Type.String({ default: '' }),
    doc: "PEM file of the certificate authorities the endpoint's certificate may chain to, besides the system's.",
  },
  DEA_AUDIT_HTTPS_BATCH_SIZE: {
    schema: Type.Integer({ minimum: 1, maximum: 5000, default: 200 }),
    doc: 'Audit entries per HTTPS batch at most.',
  },
  DEA_AUDIT_HTTPS_INTERVAL_MS: {
    schema: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
    doc: 'How long entries wait to fill a batch before it is sent anyway.',
  },
  DEA_AUDIT_FILE: {
    schema: Type.String({ default: '' }),
    doc: 'File to which every audit entry is appended as one JSON line (created with mode 0640); reopened on SIGHUP, so logrotate can move it away. Empty: none.',
  },
  DEA_AUDIT_EXPORT_BUFFER: {
    schema: Type.Integer({ minimum: 10, maximum: 1_000_000, default: 10_000 }),
    doc: 'Audit entries read from the store at once for a syslog or file destination (a batch); what a destination has not received waits in the store, never in memory, and nothing is dropped.',
  },
  DEA_AUDIT_EXPORT_TIMEOUT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 120, default: 10 }),
    doc: 'How long a connection to a destination, or one HTTPS batch, may take before it counts as failed and is retried.',
  },
} as const;

export type SyslogTransport = 'udp' | 'tcp' | 'tls';

export interface AuditExportConfig {
  syslog:
    | { transport: SyslogTransport; host: string; port: number; facility: number; ca: string | undefined }
    | undefined;
  https:
    | { url: string; secret: Buffer; ca: string | undefined; batchSize: number; intervalMs: number }
    | undefined;
  file: string | undefined;
  buffer: number;
  timeoutMs: number;
}

const SYSLOG_URL = /^(udp|tcp|tls):\/\/(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i;
const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The audit export part of the configuration; undefined when it goes nowhere. */
export function auditExportConfigOf(
  values: SettingValues<typeof auditExportSettings>,
  problems: string[],
): AuditExportConfig | undefined {
  const syslogText = values.DEA_AUDIT_SYSLOG.trim();
  const httpsUrl = values.DEA_AUDIT_HTTPS_URL.trim();
  const file = values.DEA_AUDIT_FILE.trim();
  let syslog: AuditExportConfig['syslog'];
  if (syslogText !== '') {
    const match = SYSLOG_URL.exec(syslogText);
    const port = Number(match?.[3]);
    if (match === null || port < 1 || port > 65_535) {
      problems.push(
        `DEA_AUDIT_SYSLOG=${JSON.stringify(syslogText)}: must be udp://host:port, tcp://host:port or tls://host:port`,
      );
    } else {
      syslog = {
        transport: (match[1] ?? 'udp').toLowerCase() as SyslogTransport,
        host: (match[2] ?? '').replace(/^\[|\]$/g, ''),
        port,
        facility: SYSLOG_FACILITIES[values.DEA_AUDIT_SYSLOG_FACILITY as SyslogFacility],
        ca: readCaFile('DEA_AUDIT_SYSLOG_CA_FILE', values.DEA_AUDIT_SYSLOG_CA_FILE.trim(), problems),
      };
    }
  }
  let https: AuditExportConfig['https'];
  if (httpsUrl !== '') {
    const secret = SECRET.exec(values.DEA_AUDIT_HTTPS_SECRET.trim())?.[1];
    const secretBytes = secret === undefined ? undefined : Buffer.from(secret, 'base64');
    if (!/^https:\/\/[^\s/]+(\/\S*)?$/i.test(httpsUrl)) {
      problems.push(`DEA_AUDIT_HTTPS_URL=${JSON.stringify(httpsUrl)}: must be an https:// URL`);
    } else if (secretBytes === undefined || secretBytes.length < 24) {
      problems.push(
        'DEA_AUDIT_HTTPS_SECRET: required with DEA_AUDIT_HTTPS_URL, as whsec_ and at least 24 random bytes in base64',
      );
    } else {
      https = {
        url: httpsUrl,
        secret: secretBytes,
        ca: readCaFile('DEA_AUDIT_HTTPS_CA_FILE', values.DEA_AUDIT_HTTPS_CA_FILE.trim(), problems),
        batchSize: values.DEA_AUDIT_HTTPS_BATCH_SIZE,
        intervalMs: values.DEA_AUDIT_HTTPS_INTERVAL_MS,
      };
    }
  }
  if (syslog === undefined && https === undefined && file === '') return undefined;
  return {
    syslog,
    https,
    file: file === '' ? undefined : file,
    buffer: values.DEA_AUDIT_EXPORT_BUFFER,
    timeoutMs: values.DEA_AUDIT_EXPORT_TIMEOUT_SECONDS * 1000,
  };
}

/** The names of the destinations a configuration exports to (each keeps its position in the store). */
export function auditDestinationsOf(config: AuditExportConfig | undefined): ('syslog' | 'https' | 'file')[] {
  if (config === undefined) return [];
  const names: ('syslog' | 'https' | 'file')[] = [];
  if (config.syslog !== undefined) names.push('syslog');
  if (config.https !== undefined) names.push('https');
  if (config.file !== undefined) names.push('file');
  return names;
}
