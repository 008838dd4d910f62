import type { Logger } from 'pino';
import { AuditDestination, type AuditRecord, DestinationFailure } from '../domain/ports/audit-destination.js';
import type { Metrics } from '../observability/metrics.js';
import { postSigned } from '../net/signed-post.js';
import type { Store } from '../store/store.js';
import { type WebhookConfig, type WebhookEvent, webhookDestinationName } from './webhook-settings.js';

/** Retries wait at most this long, whatever Retry-After asks. */
export const WEBHOOK_MAX_RETRY_MS = 10 * 60_000;
/** Entries read from the trail per batch (most are of other events and are passed over). */
const BATCH = 100;

/**
 * An answer that refuses the message itself (4xx but 408 and 429): sending it again as it is
 * would not help, so it is given up after DEA_WEBHOOK_ATTEMPTS. Anything else (no connection, a
 * timeout, 408, 429, 5xx) is the endpoint being away, and the message waits in the store.
 */
const refusesTheMessage = (status: number | undefined): boolean =>
  status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * The webhook of one event as a destination of the audit export: the export reads the sealed
 * trail from the store (whoever wrote it: this instance, another, `dea`), one instance at a time,
 * and hands this destination each batch after its stored position; it posts the entries of its
 * event one by one, in the trail's order, signed as Standard Webhooks describes. The webhook-id is
 * `msg_<entry id>`: the same on every attempt, after a restart and from any instance, so that a
 * receiver drops a repeat. Begins, the first time it is configured, after the trail's last entry.
 */
export class WebhookDestination extends AuditDestination {
  /** Attempts the endpoint refused, of the entry at the head of the queue. */
  private refused = { id: '', attempts: 0 };

  constructor(
    private readonly event: WebhookEvent,
    private readonly url: string,
    private readonly config: WebhookConfig,
    private readonly store: Store,
    private readonly metrics: Metrics,
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    super(
      webhookDestinationName(event),
      BATCH,
      0,
      { firstMs: config.retryBaseMs, maxMs: WEBHOOK_MAX_RETRY_MS, jitter: 0.2 },
      'at-end',
    );
  }

  async send(records: readonly AuditRecord[]): Promise<void> {
    for (const [index, record] of records.entries()) {
      if (record.event !== this.event) continue;
      let body: string;
      try {
        body = JSON.stringify(await this.payload(record));
      } catch (error) {
        throw new DestinationFailure((error as Error).message, index);
      }
      const answer = await postSigned({
        url: this.url,
        secret: this.config.secret,
        id: `msg_${record.id}`,
        body,
        ca: this.config.ca,
        timeoutMs: this.config.timeoutMs,
        userAgent: 'Emergency Access webhooks',
        timeoutMessage: 'no answer in time (DEA_WEBHOOK_TIMEOUT_SECONDS)',
      });
      if (answer.ok) {
        this.metrics.webhookMessages.inc({ event: this.event, outcome: 'delivered' });
        continue;
      }
      if (refusesTheMessage(answer.status)) {
        if (this.refused.id !== record.id) this.refused = { id: record.id, attempts: 0 };
        this.refused.attempts += 1;
        if (this.refused.attempts >= this.config.attempts) {
          this.metrics.webhookMessages.inc({ event: this.event, outcome: 'failed' });
          this.log.warn(
            { event: this.event, url: this.url, id: `msg_${record.id}`, seq: record.seq, why: answer.why },
            `webhook message given up: ${this.url} refused it ${this.refused.attempts} times (${answer.why}; DEA_WEBHOOK_ATTEMPTS); the audit log keeps the entry`,
          );
          continue;
        }
      }
      throw new DestinationFailure(
        answer.status === undefined
          ? `${this.url}: ${answer.why} (check DEA_WEBHOOKS and DEA_WEBHOOK_CA_FILE)`
          : `${this.url} answered ${answer.why} (check the receiver of DEA_WEBHOOKS)`,
        index,
        answer.retryAfterMs === undefined ? undefined : Math.min(answer.retryAfterMs, WEBHOOK_MAX_RETRY_MS),
      );
    }
  }

  async release(): Promise<void> {}

  /** What the receiver gets: the event and what the audit entry says, never a code. */
  private async payload(record: AuditRecord): Promise<Record<string, unknown>> {
    const user = record.userId === null ? undefined : await this.store.users.findById(record.userId);
    return {
      type: this.event,
      timestamp: record.at,
      data: {
        userId: record.userId,
        username: user?.username ?? null,
        actor: record.actor,
        clientAddress: record.clientAddress,
        ...record.details,
      },
    };
  }
}

/** The destination of each event of DEA_WEBHOOKS, for the audit export (none without webhooks). */
export function webhookDestinations(
  config: WebhookConfig | undefined,
  store: Store,
  metrics: Metrics,
  log: Pick<Logger, 'warn'>,
): WebhookDestination[] {
  if (config === undefined) return [];
  return (Object.entries(config.urls) as [WebhookEvent, string][]).map(
    ([event, url]) => new WebhookDestination(event, url, config, store, metrics, log),
  );
}
