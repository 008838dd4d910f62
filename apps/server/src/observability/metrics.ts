import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { NewAuditEntry } from '../store/store.js';

/**
 * Prometheus metrics of one instance. Business counts are derived from the audit events, the
 * one record of what happened, so metrics and audit never disagree.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly codesIssued = new Counter({
    name: 'dea_codes_issued_total',
    help: 'Emergency codes issued, by channel type (screen for codes shown on screen).',
    labelNames: ['channel'],
    registers: [this.registry],
  });
  private readonly codesSent = new Counter({
    name: 'dea_codes_sent_total',
    help: 'Emergency codes handed to a delivery provider, by channel type and outcome.',
    labelNames: ['channel', 'outcome'],
    registers: [this.registry],
  });
  private readonly codesRefused = new Counter({
    name: 'dea_codes_refused_total',
    help: 'Requests for a code refused, by reason (store-full, rate limits...).',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  private readonly verifications = new Counter({
    name: 'dea_code_verifications_total',
    help: 'Code verifications, by outcome (used, failed, locked) and the channel type of the used code (none when no code was used).',
    labelNames: ['outcome', 'channel'],
    registers: [this.registry],
  });
  private readonly signIns = new Counter({
    name: 'dea_signins_total',
    help: 'Sign-in attempts, by outcome (succeeded, failed, locked, busy: refused by the full hashing queue).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: 'dea_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'dea_' });
    // prom-client names three gauges with a counter's "_total": promtool (and Prometheus's naming
    // rules) refuse them. dea_nodejs_active_resources{type} and _handles tell the same.
    for (const name of ['active_handles', 'active_requests', 'active_resources']) {
      this.registry.removeSingleMetric(`dea_nodejs_${name}_total`);
    }
  }

  codeIssued(channel: string | null): void {
    this.codesIssued.inc({ channel: channel ?? 'screen' });
  }

  /** Counts what an audit event says happened. */
  auditEvent(entry: NewAuditEntry): void {
    const details = entry.details ?? {};
    const channel = typeof details.channel === 'string' ? details.channel : 'unknown';
    const reason = typeof details.reason === 'string' ? details.reason : 'unknown';
    switch (entry.event) {
      case 'code.sent':
        return this.codesSent.inc({ channel, outcome: 'delivered' });
      case 'code.delivery_failed':
        return this.codesSent.inc({ channel, outcome: 'failed' });
      case 'code.refused':
      case 'code.send_refused':
        return this.codesRefused.inc({ reason });
      case 'code.used':
        return this.verifications.inc({ outcome: 'used', channel });
      case 'code.verify_failed':
        return this.verifications.inc({ outcome: 'failed', channel: 'none' });
      case 'code.verify_locked':
        return this.verifications.inc({ outcome: 'locked', channel: 'none' });
      case 'signin.succeeded':
        return this.signIns.inc({ outcome: 'succeeded' });
      case 'signin.failed':
        return this.signIns.inc({ outcome: 'failed' });
      case 'signin.locked':
        return this.signIns.inc({ outcome: 'locked' });
      case 'signin.busy':
        return this.signIns.inc({ outcome: 'busy' });
      default:
        return undefined;
    }
  }
}
