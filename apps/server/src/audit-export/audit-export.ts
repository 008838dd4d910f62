import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics.js';
import type { NewAuditEntry } from '../store/store.js';
import type { AuditExportConfig } from './audit-export-settings.js';
import { auditRecordOf } from './audit-record.js';
import { FileDestination } from './file-destination.js';
import { HttpsDestination } from './https-destination.js';
import type { QueuedDestination } from './queued-destination.js';
import { SyslogDestination } from './syslog-destination.js';

/**
 * Every audit entry, as it is written, also to the destinations of DEA_AUDIT_SYSLOG,
 * DEA_AUDIT_HTTPS_URL and DEA_AUDIT_FILE. Each has a buffer of its own, so a slow or dead one
 * never delays a request nor holds up the others.
 */
export class AuditExport {
  private readonly destinations: QueuedDestination[] = [];
  private readonly file: FileDestination | undefined;
  private readonly host = hostname();

  constructor(config: AuditExportConfig, metrics: Metrics, log: Pick<Logger, 'warn' | 'info'>) {
    if (config.syslog !== undefined) {
      this.destinations.push(
        new SyslogDestination(config.syslog, config.timeoutMs, config.buffer, metrics, log),
      );
    }
    if (config.https !== undefined) {
      this.destinations.push(
        new HttpsDestination(config.https, config.timeoutMs, config.buffer, metrics, log),
      );
    }
    if (config.file !== undefined) {
      this.file = new FileDestination(config.file, config.buffer, metrics, log);
      this.destinations.push(this.file);
    }
    metrics.watchAuditExport(() =>
      this.destinations.map((destination) => ({ destination: destination.name, ...destination.backlog() })),
    );
  }

  /** Called for every audit entry written; never throws and never waits. */
  notify(entry: NewAuditEntry & { id: string }, at: number): void {
    const record = auditRecordOf(entry, at, this.host);
    for (const destination of this.destinations) destination.offer(record);
  }

  /** After logrotate: the audit file is opened again. */
  reopen(): void {
    this.file?.reopen();
  }

  /** Sends what waits for at most `ms`, then stops. */
  async close(ms: number): Promise<void> {
    await Promise.all(this.destinations.map((destination) => destination.close(ms)));
  }
}
