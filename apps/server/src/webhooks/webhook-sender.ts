import type { Logger } from 'pino';
import { newId } from '../crypto/ids.js';
import type { Metrics } from '../observability/metrics.js';
import type { NewAuditEntry, Store } from '../store/store.js';
import { backoffDelay } from '../net/backoff.js';
import { postSigned } from '../net/signed-post.js';
import { isWebhookEvent, type WebhookConfig, type WebhookEvent } from './webhook-settings.js';

const MAX_RETRY_AFTER_MS = 10 * 60_000;

type Attempt = { ok: true } | { ok: false; why: string; retryAfterMs?: number | undefined };

/**
 * Sends the audit events an operator chose to their HTTPS webhooks, signed as Standard Webhooks
 * describes, after the request that caused them: a slow or dead endpoint never delays or fails a
 * user's request. Each message keeps its webhook-id over its retries (receivers drop repeats),
 * with a fresh timestamp and signature per attempt. At most `maxPending` messages wait; beyond,
 * new ones are dropped and counted.
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly config: WebhookConfig,
    private readonly store: Store,
    private readonly metrics: Metrics,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
  ) {}

  /** Called for every audit entry written; never throws and never waits. */
  notify(entry: NewAuditEntry, at: number): void {
    if (this.closed || !isWebhookEvent(entry.event)) return;
    const url = this.config.urls[entry.event];
    if (url === undefined) return;
    if (this.inFlight.size >= this.config.maxPending) {
      this.metrics.webhookMessages.inc({ event: entry.event, outcome: 'dropped' });
      this.log.warn(
        { event: entry.event, pending: this.inFlight.size },
        'webhook message dropped: too many waiting (DEA_WEBHOOK_MAX_PENDING)',
      );
      return;
    }
    const task = this.deliver(url, entry.event, entry, at).catch((error: unknown) =>
      this.log.warn({ event: entry.event, cause: (error as Error).message }, 'webhook message failed'),
    );
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  /** Waits for the messages under way, at most `ms`. */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  /** No new messages; waiting retries are given up. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async deliver(url: string, event: WebhookEvent, entry: NewAuditEntry, at: number): Promise<void> {
    const id = `msg_${newId(at)}`;
    const body = JSON.stringify(await this.payload(event, entry, at));
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.attempt(url, id, body);
      if (outcome.ok) {
        this.metrics.webhookMessages.inc({ event, outcome: 'delivered' });
        return;
      }
      if (attempt >= this.config.attempts || this.closed) {
        this.metrics.webhookMessages.inc({ event, outcome: 'failed' });
        this.log.warn(
          { event, url, id, attempts: attempt, why: outcome.why },
          'webhook message given up (DEA_WEBHOOK_ATTEMPTS)',
        );
        return;
      }
      const backoff = backoffDelay(
        { firstMs: this.config.retryBaseMs, maxMs: MAX_RETRY_AFTER_MS, jitter: 0.2 },
        attempt,
      );
      await this.wait(Math.min(outcome.retryAfterMs ?? backoff, MAX_RETRY_AFTER_MS));
      if (this.closed) {
        this.metrics.webhookMessages.inc({ event, outcome: 'failed' });
        return;
      }
    }
  }

  /** What the receiver gets: the event and what the audit entry says, never a code. */
  private async payload(
    event: WebhookEvent,
    entry: NewAuditEntry,
    at: number,
  ): Promise<Record<string, unknown>> {
    const userId = entry.userId ?? null;
    const user = userId === null ? undefined : await this.store.users.findById(userId);
    return {
      type: event,
      timestamp: new Date(at).toISOString(),
      data: {
        userId,
        username: user?.username ?? null,
        actor: entry.actor ?? null,
        clientAddress: entry.clientAddress ?? null,
        ...entry.details,
      },
    };
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  private attempt(url: string, id: string, body: string): Promise<Attempt> {
    return postSigned({
      url,
      secret: this.config.secret,
      id,
      body,
      ca: this.config.ca,
      timeoutMs: this.config.timeoutMs,
      userAgent: 'Emergency Access webhooks',
      timeoutMessage: 'timed out (DEA_WEBHOOK_TIMEOUT_SECONDS)',
    });
  }
}
