import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { SecretKeys } from '../crypto/secret-keys.js';
import { beginAuditTrail, exportedHeadOf, sealAuditTrail } from '../domain/audit/audit-trail.js';
import { Backoff } from '../net/backoff.js';
import type { Metrics } from '../observability/metrics.js';
import type { SealFinding, Store } from '../store/store.js';
import type { AuditExportConfig } from './audit-export-settings.js';
import { auditRecordOf } from './audit-record.js';
import { type AuditDestination, DestinationFailure } from '../domain/ports/audit-destination.js';
import { FileDestination } from './file-destination.js';
import { HttpsDestination } from './https-destination.js';
import { SyslogDestination } from './syslog-destination.js';

/** The lease that lets one instance export at a time. */
export const AUDIT_EXPORT_LEASE = 'audit-export';
/** An exporter holds the lease this long past its last round: a crashed one frees it by then. */
export const AUDIT_EXPORT_LEASE_MS = 30_000;
/** How often the store is read for entries to seal and to export (a local write asks at once). */
export const AUDIT_EXPORT_POLL_MS = 500;
/**
 * A local write asks for a round this soon: the entries written meanwhile are sealed (and sent)
 * together, where a round for each entry sealed each one alone, a second write transaction for
 * every request at low concurrency. 100 ms, not 20: from one client a round's three round trips to
 * PostgreSQL then come about once every twenty requests, not every fourth or fifth, 5 to 20% of
 * the server's CPU for a code's issue and verification, no clear change from eight (ADR 0030); an
 * entry reaches the SIEM or a webhook at most about 80 ms later.
 */
export const AUDIT_SEAL_GATHER_MS = 100;
/** Retries of a failing destination: 0.5 s, then doubling, up to 30 s. */
const RETRY = { firstMs: 500, maxMs: 30_000, jitter: 0.2 };

interface Exported {
  destination: AuditDestination;
  retry: Backoff;
  /** No attempt before this (a failing destination's delay). */
  notBefore: number;
  failing: boolean;
  waiting: number;
  lagSeconds: number;
  /** The oldest entry not received yet, and when (wall time) this exporter first saw it waiting. */
  oldest: { seq: number; seenAt: number } | undefined;
  /** The sending under way, started by a round; the next rounds leave the destination to it. */
  pump: Promise<void> | undefined;
}

/** Wall time in ms: retries, lingering and lag are measured on it, whatever clock the entries carry. */
const wallNow = (): number => performance.now();

/**
 * The audit trail's pump: every round it seals what any writer (this instance, another, `dea`)
 * added to the store's audit log, and, while it holds the export lease, sends each destination
 * (DEA_AUDIT_SYSLOG, DEA_AUDIT_HTTPS_URL, DEA_AUDIT_FILE, and the webhook of each event of
 * DEA_WEBHOOKS) what it has not received yet, in the trail's order, keeping its position in the
 * store once a batch (or part of one) is sent: at least once, resumed after a restart or an
 * outage, from whichever instance holds the lease. A request never waits on it.
 */
export class AuditExport {
  private readonly exported: Exported[] = [];
  private readonly file: FileDestination | undefined;
  private readonly host = hostname();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private storeFailing = false;
  /** Whether the destinations that begin at the trail's end have their first position. */
  private begun = false;

  constructor(
    config: AuditExportConfig | undefined,
    private readonly store: Store,
    private readonly keys: SecretKeys,
    private readonly metrics: Metrics,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    private readonly options: {
      holder: string;
      now: () => number;
      pollMs?: number;
      /** How long a local write waits for others before the round (AUDIT_SEAL_GATHER_MS). */
      gatherMs?: number;
      /** Destinations built elsewhere (the webhook of each event of DEA_WEBHOOKS), after those of `config`. */
      destinations?: readonly AuditDestination[];
      /** The turn of the server's requests between a seal's batches (domain/bulkheads.ts RequestTurns); none: no turns. */
      turn?: (stepMs: number) => Promise<void>;
    },
  ) {
    const destinations: AuditDestination[] = [];
    if (config?.syslog !== undefined)
      destinations.push(new SyslogDestination(config.syslog, config.timeoutMs, config.buffer));
    if (config?.https !== undefined) destinations.push(new HttpsDestination(config.https, config.timeoutMs));
    if (config?.file !== undefined) {
      this.file = new FileDestination(config.file, Math.min(config.buffer, 1000));
      destinations.push(this.file);
    }
    destinations.push(...(options.destinations ?? []));
    for (const destination of destinations)
      this.exported.push({
        destination,
        retry: new Backoff(destination.retry ?? RETRY),
        notBefore: 0,
        failing: false,
        waiting: 0,
        lagSeconds: 0,
        oldest: undefined,
        pump: undefined,
      });
    metrics.watchAuditExport(() =>
      this.exported.map(({ destination, waiting, lagSeconds }) => ({
        destination: destination.name,
        waiting,
        lagSeconds,
      })),
    );
  }

  /**
   * Gives each destination that begins at the trail's end (a webhook configured for the first
   * time) its position: the entries sealed before this start are not news to it. Called before
   * the server takes requests; a round does it if the store did not answer then.
   */
  async begin(): Promise<void> {
    if (this.begun) return;
    // An unused store's trail gets its signed head at place 0 (ADR 0032), before the server
    // records its secret's fingerprint.
    await beginAuditTrail(this.store, this.keys, this.options.now());
    const fresh = this.exported.filter(({ destination }) => destination.begins === 'at-end');
    if (fresh.length > 0) {
      const last = await this.store.auditTrail.lastSeq();
      for (const { destination } of fresh)
        await this.store.auditTrail.addPosition(destination.name, last, this.options.now());
    }
    this.begun = true;
  }

  /** Starts the rounds. */
  start(): void {
    this.schedule(0);
  }

  /**
   * An entry was written here: a round soon rather than at the next poll, gathering the entries
   * written meanwhile (AUDIT_SEAL_GATHER_MS). Never throws nor waits.
   */
  notify(): void {
    this.schedule(this.options.gatherMs ?? AUDIT_SEAL_GATHER_MS);
  }

  /** After logrotate: the audit file is opened again. */
  reopen(): void {
    this.file?.reopen();
  }

  /** One round now (tests, and the last one at shutdown). */
  async round(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      await this.running;
      return;
    }
    this.running = this.work().finally(() => {
      this.running = undefined;
    });
    await this.running;
    if (this.again && !this.closed) {
      this.again = false;
      this.schedule(0);
    }
  }

  /** Sends what waits for at most `ms`, then stops and frees the lease. */
  async close(ms: number): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      (this.running ?? Promise.resolve())
        .then(() => this.work())
        .then(() =>
          Promise.allSettled(this.exported.flatMap(({ pump }) => (pump === undefined ? [] : [pump]))),
        ),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]).catch(() => undefined);
    clearTimeout(timer);
    await this.store.leases.release(AUDIT_EXPORT_LEASE, this.options.holder).catch(() => undefined);
    await Promise.all(this.exported.map(({ destination }) => destination.release().catch(() => undefined)));
  }

  /** When the pending round is due (performance.now()). */
  private dueAt = Number.POSITIVE_INFINITY;

  /** A round in `delayMs`, unless one is due sooner already. */
  private schedule(delayMs: number): void {
    if (this.closed) return;
    const due = performance.now() + delayMs;
    if (this.timer !== undefined) {
      if (due >= this.dueAt) return;
      clearTimeout(this.timer);
    }
    this.dueAt = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.dueAt = Number.POSITIVE_INFINITY;
      void this.round().finally(() => this.schedule(this.options.pollMs ?? AUDIT_EXPORT_POLL_MS));
    }, delayMs);
    this.timer.unref();
  }

  private async work(): Promise<void> {
    const { now, holder } = this.options;
    try {
      await this.begin();
      await sealAuditTrail(
        this.store,
        this.keys,
        now(),
        (finding) => this.sealFound(finding),
        this.options.turn,
      );
      if (this.exported.length > 0) {
        const at = now();
        if (await this.store.leases.take(AUDIT_EXPORT_LEASE, holder, at, at + AUDIT_EXPORT_LEASE_MS)) {
          // Each destination on its own: a round starts the ones that are idle and does not wait for
          // them, so a slow or hanging one (a webhook's endpoint) delays no other, and none is ever
          // sent to twice at once.
          const idle = this.exported.filter(({ pump }) => pump === undefined);
          const positions = await this.store.auditTrail.positions(
            idle.map(({ destination }) => destination.name),
          );
          for (const exported of idle)
            exported.pump = this.exportTo(exported, positions.get(exported.destination.name) ?? 0)
              .catch((error: unknown) => this.storeFailed(error))
              .finally(() => {
                exported.pump = undefined;
              });
        }
      }
      if (this.storeFailing) this.log.info('audit trail: the store answers again; sealing and export go on');
      this.storeFailing = false;
    } catch (error) {
      this.storeFailed(error);
    }
  }

  /** What a seal found that the operator must hear of: entries the product did not write, a cut end. */
  private sealFound(finding: SealFinding): void {
    if (finding.kind === 'refused')
      this.metrics.auditTrailTampering.inc({ finding: 'set_aside' }, finding.ids.length);
    else this.metrics.auditTrailTampering.inc({ finding: 'cut' });
    if (finding.kind === 'refused')
      this.log.warn(
        { ids: finding.ids.slice(0, 10), count: finding.ids.length },
        `audit trail: ${finding.ids.length} entries in the audit log were not written by the product (no valid stamp) and are set aside, never sealed; someone wrote to the database directly (npx dea audit verify names them)`,
      );
    else
      this.log.warn(
        { afterSeq: finding.afterSeq },
        `audit trail: ${finding.reason} after entry #${finding.afterSeq}: the end of the trail was cut in the database; the trail goes on and records the cut (npx dea audit verify --anchor <the audit file> tells what is missing)`,
      );
  }

  private storeFailed(error: unknown): void {
    if (!this.storeFailing)
      this.log.warn(
        { err: error },
        `audit trail: cannot seal or export (${(error as Error).message}); the entries wait in the store and are sent once it answers (check DATABASE_URL or DEA_DATA_DIR)`,
      );
    this.storeFailing = true;
  }

  private async exportTo(exported: Exported, from: number): Promise<void> {
    const { destination } = exported;
    const { now, holder } = this.options;
    let position = from;
    for (;;) {
      const entries = await this.store.auditTrail.sealedAfter(position, destination.batchSize);
      const first = entries[0];
      if (first === undefined) {
        exported.waiting = 0;
        exported.lagSeconds = 0;
        exported.oldest = undefined;
        return;
      }
      if (exported.oldest?.seq !== first.seq) exported.oldest = { seq: first.seq, seenAt: wallNow() };
      const waited = wallNow() - exported.oldest.seenAt;
      if (entries.length >= destination.batchSize)
        exported.waiting = (await this.store.auditTrail.lastSeq()) - position;
      else exported.waiting = entries.length;
      exported.lagSeconds = waited / 1000;
      if (wallNow() < exported.notBefore) return;
      // A batch that is not full waits for more while its oldest entry has waited less than the linger.
      if (entries.length < destination.batchSize && waited < destination.lingerMs) return;
      const records = entries.map((entry) => auditRecordOf(entry, this.host));
      // Each copy of the trail carries its signed head, the anchor of its end outside the store.
      const lastEntry = entries.at(-1);
      const lastRecord = records.at(-1);
      if (!destination.name.startsWith('webhook:') && lastEntry !== undefined && lastRecord !== undefined)
        lastRecord.head = exportedHeadOf(this.keys, lastEntry, now());
      try {
        await destination.send(records);
      } catch (error) {
        // What went before the failure was received: the position moves past it.
        const delivered = error instanceof DestinationFailure ? error.delivered : 0;
        const through = entries[delivered - 1];
        if (through !== undefined) {
          await this.store.auditTrail.setPosition(destination.name, through.seq, now());
          this.metrics.auditExportEntries.inc({ destination: destination.name, outcome: 'sent' }, delivered);
          exported.waiting = Math.max(0, exported.waiting - delivered);
        }
        this.metrics.auditExportFailures.inc({ destination: destination.name });
        const delay = exported.retry.next();
        const asked = error instanceof DestinationFailure ? error.retryAfterMs : undefined;
        exported.notBefore = wallNow() + (asked ?? delay);
        if (!exported.failing)
          this.log.warn(
            { destination: destination.name },
            `audit export to ${destination.name} failed: ${(error as Error).message}; entries wait in the store and are retried`,
          );
        exported.failing = true;
        return;
      }
      const last = entries.at(-1)?.seq ?? position;
      await this.store.auditTrail.setPosition(destination.name, last, now());
      position = last;
      this.metrics.auditExportEntries.inc({ destination: destination.name, outcome: 'sent' }, entries.length);
      if (exported.failing)
        this.log.info({ destination: destination.name }, `audit export to ${destination.name} works again`);
      exported.failing = false;
      exported.retry.reset();
      exported.notBefore = 0;
      exported.waiting = Math.max(0, exported.waiting - entries.length);
      if (entries.length < destination.batchSize) {
        exported.waiting = 0;
        exported.lagSeconds = 0;
        exported.oldest = undefined;
        return;
      }
      // Still the exporter? A round that outran the lease stops; the holder goes on from the position.
      const at = now();
      if (!(await this.store.leases.take(AUDIT_EXPORT_LEASE, holder, at, at + AUDIT_EXPORT_LEASE_MS))) return;
    }
  }
}
