import { open, type FileHandle } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics.js';
import { asciiJson, type AuditRecord } from './audit-record.js';
import { QueuedDestination } from './queued-destination.js';

/** Audit entries appended to a file, one JSON object per line; reopened on SIGHUP (log rotation). */
export class FileDestination extends QueuedDestination {
  private handle: FileHandle | undefined;
  private reopenWanted = false;

  constructor(
    private readonly path: string,
    buffer: number,
    metrics: Metrics,
    log: Pick<Logger, 'warn' | 'info'>,
  ) {
    super('file', buffer, metrics, log, 1000, 0);
  }

  protected async send(records: readonly AuditRecord[]): Promise<void> {
    const lines = records.map((record) => `${asciiJson(record)}\n`).join('');
    try {
      if (this.reopenWanted) {
        this.reopenWanted = false;
        await this.release();
      }
      this.handle ??= await open(this.path, 'a', 0o640);
      await this.handle.appendFile(lines);
    } catch (error) {
      await this.release();
      throw new Error(
        `cannot append to ${this.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; check DEA_AUDIT_FILE and the folder's permissions)`,
      );
    }
  }

  /** The next batch opens the file again: after logrotate moved it, a new one is created. */
  reopen(): void {
    this.reopenWanted = true;
  }

  protected async release(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }
}
