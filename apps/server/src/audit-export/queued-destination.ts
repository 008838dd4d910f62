import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics.js';
import type { AuditRecord } from './audit-record.js';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;

export type DestinationName = 'syslog' | 'https' | 'file';

/**
 * One place audit entries go, with its own bounded buffer: entries are taken at once (never
 * waiting on the destination), sent in order in batches, kept and retried with a growing delay
 * while the destination fails, and dropped (counted, logged once) only when the buffer is full.
 * A subclass says how a batch is sent; a batch is sent whole or retried whole.
 */
export abstract class QueuedDestination {
  private readonly queue: { record: AuditRecord; queuedAt: number }[] = [];
  private sending = false;
  private timer: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  private failing = false;
  private dropping = false;
  private closed = false;
  private drained: (() => void) | undefined;

  protected constructor(
    readonly name: DestinationName,
    private readonly limit: number,
    private readonly metrics: Metrics,
    protected readonly log: Pick<Logger, 'warn' | 'info'>,
    /** Entries per batch at most. */
    private readonly batchSize: number,
    /** How long entries wait for a batch to fill; 0: sent as they come. */
    private readonly lingerMs: number,
  ) {}

  /** Sends the batch whole, or throws (an Error whose message names the cause and the setting). */
  protected abstract send(records: readonly AuditRecord[]): Promise<void>;

  /** Frees what the destination holds (a connection, a file). */
  protected abstract release(): Promise<void>;

  /** Never throws, never waits: false when the buffer is full and the entry is dropped here. */
  offer(record: AuditRecord): boolean {
    if (this.closed) return false;
    if (this.queue.length >= this.limit) {
      this.metrics.auditExportEntries.inc({ destination: this.name, outcome: 'dropped' });
      if (!this.dropping) {
        this.dropping = true;
        this.log.warn(
          { destination: this.name, waiting: this.queue.length },
          `audit export to ${this.name}: buffer full (DEA_AUDIT_EXPORT_BUFFER), new entries are dropped for it until it catches up; the store's audit log keeps them`,
        );
      }
      return false;
    }
    this.queue.push({ record, queuedAt: Date.now() });
    this.schedule(this.queue.length >= this.batchSize ? 0 : this.lingerMs);
    return true;
  }

  /** Entries waiting, and how long the oldest has waited. */
  backlog(now = Date.now()): { waiting: number; lagSeconds: number } {
    const oldest = this.queue[0];
    return {
      waiting: this.queue.length,
      lagSeconds: oldest === undefined ? 0 : (now - oldest.queuedAt) / 1000,
    };
  }

  /** Sends what waits for at most `ms`, then stops: what is still waiting is given up (and logged). */
  async close(ms: number): Promise<void> {
    if (this.queue.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          this.drained = resolve;
          this.schedule(0);
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ms);
        }),
      ]);
      clearTimeout(timer);
    }
    this.closed = true;
    clearTimeout(this.timer);
    if (this.queue.length > 0) {
      this.log.warn(
        { destination: this.name, waiting: this.queue.length },
        `audit export to ${this.name}: stopping with entries not sent; the store's audit log keeps them`,
      );
    }
    await this.release().catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.sending || this.closed) return;
    if (this.timer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sendWaiting();
    }, delayMs);
    this.timer.unref();
  }

  private async sendWaiting(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const batch = this.queue.slice(0, this.batchSize).map((queued) => queued.record);
        try {
          await this.send(batch);
        } catch (error) {
          this.metrics.auditExportFailures.inc({ destination: this.name });
          if (!this.failing) {
            this.failing = true;
            this.log.warn(
              { destination: this.name, waiting: this.queue.length },
              `audit export to ${this.name} failed: ${(error as Error).message}; entries wait and are retried`,
            );
          }
          this.sending = false;
          this.schedule(this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
          return;
        }
        this.queue.splice(0, batch.length);
        this.metrics.auditExportEntries.inc({ destination: this.name, outcome: 'sent' }, batch.length);
        if (this.failing)
          this.log.info({ destination: this.name }, `audit export to ${this.name} works again`);
        this.failing = false;
        this.dropping = false;
        this.retryMs = FIRST_RETRY_MS;
      }
    } finally {
      this.sending = false;
    }
    if (this.queue.length === 0) this.drained?.();
    else this.schedule(this.lingerMs);
  }
}
