import { open, type FileHandle } from 'node:fs/promises';
import type { AuditRecord } from '../domain/ports/audit-destination.js';
import { asciiJson } from './audit-record.js';
import { AuditDestination } from '../domain/ports/audit-destination.js';

/** Audit entries appended to a file, one JSON object per line; reopened on SIGHUP (log rotation). */
export class FileDestination extends AuditDestination {
  private handle: FileHandle | undefined;
  private reopenWanted = false;

  constructor(
    private readonly path: string,
    batch: number,
  ) {
    super('file', batch, 0);
  }

  async send(records: readonly AuditRecord[]): Promise<void> {
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

  async release(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }
}
