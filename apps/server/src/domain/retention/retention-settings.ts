import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';

/** How long the store keeps what is no longer needed, and how the purge that removes it runs. */
export const retentionSettings = {
  DEA_RETENTION_AUDIT_DAYS: {
    schema: Type.Integer({ minimum: 0, maximum: 36_500, default: 365 }),
    doc: 'Audit entries older than this many days are removed by the purge; 0 keeps them for ever. Ship them elsewhere first if they must live longer (audit export).',
  },
  DEA_RETENTION_AUDIT_UNEXPORTED: {
    schema: Type.Boolean({ default: false }),
    doc: 'true: the purge removes audit entries past DEA_RETENTION_AUDIT_DAYS even when an export destination (DEA_AUDIT_SYSLOG, DEA_AUDIT_HTTPS_URL, DEA_AUDIT_FILE) has not received them yet. false: they stay until every destination has them.',
  },
  DEA_RETENTION_OUTBOX_DAYS: {
    schema: Type.Integer({ minimum: 0, maximum: 3650, default: 7 }),
    doc: 'Outbox messages older than this many days are removed by the purge; 0 keeps them for ever.',
  },
  DEA_RETENTION_SESSION_HOURS: {
    schema: Type.Integer({ minimum: 0, maximum: 168, default: 1 }),
    doc: 'An ended or expired session (page or console) is kept this many hours, so that its browser is told "session expired" rather than "not signed in"; then the purge removes it. Proofs of new addresses, registration challenges and sessions, and one-time links (registration, undo, password, console enrolment) are kept as long once they expired or were used.',
  },
  DEA_PURGE_INTERVAL_SECONDS: {
    schema: Type.Integer({ minimum: 0, maximum: 86_400, default: 600 }),
    doc: 'How often a server removes used and expired codes, old sessions, sign-in failure and rate-limit rows, and audit entries and outbox messages past their retention; one instance at a time on a shared store. 0: never (run dea purge from a timer instead).',
  },
  DEA_PURGE_BATCH_SIZE: {
    schema: Type.Integer({ minimum: 10, maximum: 100_000, default: 1000 }),
    doc: 'Rows the purge removes per statement: each batch holds its locks for milliseconds, never for the whole purge.',
  },
  DEA_PURGE_BUSY_PERCENT: {
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
    doc: 'The share of the time a purge may spend removing rows: after a batch that took t it waits t × (100 − this) / this, so requests keep the store the rest of the time. 100: no pause (a dea purge run while nothing else uses the store).',
  },
} as const;

export interface RetentionConfig {
  /** Audit entries older than this go; null: kept for ever. */
  auditMs: number | null;
  /** Audit entries past auditMs go even when an export destination has not received them. */
  auditUnexported: boolean;
  outboxMs: number | null;
  /** How long an ended or expired session is kept. */
  sessionGraceMs: number;
  /** 0: no scheduled purge. */
  intervalMs: number;
  batchSize: number;
  /** The share of the time (1-100) a purge may spend removing rows. */
  busyPercent: number;
}

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

export function retentionConfigOf(values: SettingValues<typeof retentionSettings>): RetentionConfig {
  return {
    auditMs: values.DEA_RETENTION_AUDIT_DAYS === 0 ? null : values.DEA_RETENTION_AUDIT_DAYS * DAY,
    auditUnexported: values.DEA_RETENTION_AUDIT_UNEXPORTED,
    outboxMs: values.DEA_RETENTION_OUTBOX_DAYS === 0 ? null : values.DEA_RETENTION_OUTBOX_DAYS * DAY,
    sessionGraceMs: values.DEA_RETENTION_SESSION_HOURS * HOUR,
    intervalMs: values.DEA_PURGE_INTERVAL_SECONDS * 1000,
    batchSize: values.DEA_PURGE_BATCH_SIZE,
    busyPercent: values.DEA_PURGE_BUSY_PERCENT,
  };
}
