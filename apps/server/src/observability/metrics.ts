import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const STORE_PING_TIMEOUT_MS = 2000;

export interface AuditExportBacklog {
  destination: string;
  waiting: number;
  lagSeconds: number;
}
import type { AuditEventName } from '../domain/audit/audit-events.js';
import { PURGE_KINDS, type NewAuditEntry, type PurgeKind } from '../store/store.js';

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
    help: 'Emergency codes handed to a delivery provider, by channel type, provider (smtp, http, twitter, outbox) and outcome (delivered, failed).',
    labelNames: ['channel', 'provider', 'outcome'],
    registers: [this.registry],
  });
  private readonly codesRefused = new Counter({
    name: 'dea_codes_refused_total',
    help: 'Requests for a code refused, by reason (store-full, rate limits, screen-untrusted: a code on screen without a trusted network or remembered device...).',
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
    help: 'Sign-in attempts, by outcome (succeeded, failed, locked, busy: refused by the full hashing queue or by the bound on sign-ins in flight, directory_unavailable).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly consoleEnrolments = new Counter({
    name: 'dea_console_enrolment_links_total',
    help: 'Enrolment links of console accounts, by outcome (issued, used, refused) and, for refused, the reason (missing, unknown, used, expired, other-account).',
    labelNames: ['outcome', 'reason'],
    registers: [this.registry],
  });
  private readonly channelProofs = new Counter({
    name: 'dea_channel_proofs_total',
    help: "Proofs of addresses people register, by outcome (sent, proven, refused) and, for refused, the reason (as channel.proof_refused's details.reason).",
    labelNames: ['outcome', 'reason'],
    registers: [this.registry],
  });
  private readonly channelUndoLinks = new Counter({
    name: 'dea_channel_undo_links_total',
    help: "Links in a new channel's notice used to undo it, by outcome (undone, refused).",
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly channelTests = new Counter({
    name: 'dea_channel_tests_total',
    help: "Test messages of people's channels (the channels page), by outcome (sent, refused) and, for refused, the reason (as channel.test_refused's details.reason).",
    labelNames: ['outcome', 'reason'],
    registers: [this.registry],
  });
  private readonly registrationSessions = new Counter({
    name: 'dea_registration_sessions_total',
    help: 'Strong sign-ins for the registration of channels, by outcome (challenge_sent, opened, refused, link_issued) and method (channel-code, link, passkey, oidc).',
    labelNames: ['outcome', 'method'],
    registers: [this.registry],
  });
  private readonly rememberedDevices = new Counter({
    name: 'dea_remembered_devices_total',
    help: 'Remembered devices, by outcome (remembered; forgotten, counting each device).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly userPasskeys = new Counter({
    name: 'dea_user_passkeys_total',
    help: "People's own passkeys, by outcome (registered, refused, renamed, removed, forgotten).",
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly consoleOidc = new Counter({
    name: 'dea_console_oidc_total',
    help: "The console's sign-ins through the OpenID provider, by outcome (signed_in, refused, role_changed) and, for refused, the reason (provider-unavailable, provider-error, state-unknown, wrong-issuer, token-refused, mfa-missing, unmapped, disabled, username-taken, refresh-failed).",
    labelNames: ['outcome', 'reason'],
    registers: [this.registry],
  });
  private readonly consoleDirectoryRoles = new Counter({
    name: 'dea_console_directory_roles_total',
    help: 'Console roles of directory people read from their groups (DEA_CONSOLE_LDAP_ROLES) that changed, by outcome (changed; ended: no mapped group, disabled or gone, the session ended).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  /** Webhook messages, by event and outcome (delivered; failed: refused by the endpoint DEA_WEBHOOK_ATTEMPTS times). */
  readonly webhookMessages = new Counter({
    name: 'dea_webhook_messages_total',
    help: 'Webhook messages, by event and outcome (delivered; failed: refused by the endpoint DEA_WEBHOOK_ATTEMPTS times and given up). An endpoint that is down is retried: see dea_audit_export_failures_total{destination="webhook:<event>"}.',
    labelNames: ['event', 'outcome'],
    registers: [this.registry],
  });
  private readonly codesSwitchedOff = new Counter({
    name: 'dea_codes_switched_off_total',
    help: "Unused codes revoked because their user's codes were switched off, by cause (user disabled, policy set, membership changed).",
    labelNames: ['cause'],
    registers: [this.registry],
  });
  private readonly verifyLockouts = new Counter({
    name: 'dea_code_verify_lockouts_total',
    help: 'Users whose codes were locked after too many failed verifications (someone may be guessing).',
    registers: [this.registry],
  });
  private readonly purgedRows = new Counter({
    name: 'dea_purged_rows_total',
    help: `Rows removed by the retention purge, by kind (${PURGE_KINDS.join(', ')}).`,
    labelNames: ['kind'],
    registers: [this.registry],
  });
  /** Audit entries exported, by destination (syslog, https, file, webhook:<event>); outcome sent (nothing is dropped: what waits stays in the store). */
  readonly auditExportEntries = new Counter({
    name: 'dea_audit_export_entries_total',
    help: 'Audit entries exported, by destination (syslog, https, file, webhook:<event>: every entry passed, of its event or not) and outcome (sent).',
    labelNames: ['destination', 'outcome'],
    registers: [this.registry],
  });
  /**
   * What a seal found in the store that the product did not do (ADR 0032): entries without a
   * valid stamp set aside (set_aside, by entry), an end of the trail cut (cut, by cut found).
   */
  readonly auditTrailTampering = new Counter({
    name: 'dea_audit_trail_tampering_total',
    help: "What the audit trail's seal found done to the database behind the product: entries without a valid stamp set aside (finding set_aside), the end of the trail cut or emptied (finding cut). npx dea audit verify names them.",
    labelNames: ['finding'],
    registers: [this.registry],
  });
  readonly auditExportFailures = new Counter({
    name: 'dea_audit_export_failures_total',
    help: 'Failed attempts to send audit entries to a destination (they wait and are retried).',
    labelNames: ['destination'],
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: 'dea_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private auditExportBacklogs: () => AuditExportBacklog[] = () => [];

  constructor() {
    const backlogs = (): AuditExportBacklog[] => this.auditExportBacklogs();
    // Each gauge reads the backlogs when it is collected: prom-client writes one before collecting the next.
    new Gauge({
      name: 'dea_audit_export_waiting',
      help: 'Audit entries waiting to be sent, by destination.',
      labelNames: ['destination'],
      registers: [this.registry],
      collect() {
        for (const backlog of backlogs()) this.set({ destination: backlog.destination }, backlog.waiting);
      },
    });
    new Gauge({
      name: 'dea_audit_export_lag_seconds',
      help: 'How long the oldest audit entry waiting for a destination has waited (0: none waits).',
      labelNames: ['destination'],
      registers: [this.registry],
      collect() {
        for (const backlog of backlogs()) this.set({ destination: backlog.destination }, backlog.lagSeconds);
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'dea_' });
    // prom-client names three gauges with a counter's "_total": promtool (and Prometheus's naming
    // rules) refuse them. dea_nodejs_active_resources{type} and _handles tell the same.
    for (const name of ['active_handles', 'active_requests', 'active_resources']) {
      this.registry.removeSingleMetric(`dea_nodejs_${name}_total`);
    }
  }

  /**
   * Whether the store answers, and how fast, measured by a ping when Prometheus scrapes (at most
   * STORE_PING_TIMEOUT_MS): what an operator pages on when every call starts answering 503.
   */
  watchStore(ping: () => Promise<void>): void {
    const latency = new Gauge({
      name: 'dea_store_ping_duration_seconds',
      help: 'How long the store took to answer a ping at the last scrape (the timeout when it did not answer).',
      registers: [this.registry],
    });
    new Gauge({
      name: 'dea_store_up',
      help: 'Whether the store answered a ping within 2 s at the last scrape (1) or not (0).',
      registers: [this.registry],
      async collect() {
        const started = performance.now();
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), STORE_PING_TIMEOUT_MS);
        });
        try {
          await Promise.race([ping(), timeout]);
          this.set(1);
        } catch {
          this.set(0);
        } finally {
          clearTimeout(timer);
          latency.set((performance.now() - started) / 1000);
        }
      },
    });
  }

  /** The backlog of each audit export destination, read when Prometheus scrapes. */
  watchAuditExport(backlogs: () => AuditExportBacklog[]): void {
    this.auditExportBacklogs = backlogs;
  }

  /** A sign-in refused by the bound on sign-ins in flight (DEA_SIGNIN_MAX_IN_FLIGHT): not audited, it did no work. */
  signInBusy(): void {
    this.signIns.inc({ outcome: 'busy' });
  }

  /** Rows one batch of the retention purge removed: the counter moves while a long purge runs. */
  rowsPurged(kind: PurgeKind, count: number): void {
    if (count > 0) this.purgedRows.inc({ kind }, count);
  }

  codeIssued(channel: string | null): void {
    this.codesIssued.inc({ channel: channel ?? 'screen' });
  }

  /** Counts what an audit event says happened: every event is named, most count nowhere. */
  auditEvent(entry: NewAuditEntry): void {
    const details = entry.details ?? {};
    const channel = typeof details.channel === 'string' ? details.channel : 'unknown';
    const reason = typeof details.reason === 'string' ? details.reason : 'unknown';
    const provider = typeof details.provider === 'string' ? details.provider : 'unknown';
    const none = (): void => undefined;
    const count: Record<AuditEventName, () => void> = {
      'code.sent': () => this.codesSent.inc({ channel, provider, outcome: 'delivered' }),
      'code.delivery_failed': () => this.codesSent.inc({ channel, provider, outcome: 'failed' }),
      'code.refused': () => this.codesRefused.inc({ reason }),
      'code.send_refused': () => this.codesRefused.inc({ reason }),
      'code.screen_untrusted': () => this.codesRefused.inc({ reason: 'screen-untrusted' }),
      'device.remembered': () => this.rememberedDevices.inc({ outcome: 'remembered' }),
      'device.forgotten': () =>
        this.rememberedDevices.inc(
          { outcome: 'forgotten' },
          typeof details.count === 'number' ? details.count : 0,
        ),
      'code.used': () => this.verifications.inc({ outcome: 'used', channel }),
      'code.use_given_back': () => this.verifications.inc({ outcome: 'given_back', channel }),
      'code.verify_failed': () => this.verifications.inc({ outcome: 'failed', channel: 'none' }),
      'code.verify_locked': () => this.verifications.inc({ outcome: 'locked', channel: 'none' }),
      'signin.succeeded': () => this.signIns.inc({ outcome: 'succeeded' }),
      'signin.failed': () => this.signIns.inc({ outcome: 'failed' }),
      'signin.locked': () => this.signIns.inc({ outcome: 'locked' }),
      'signin.busy': () => this.signIns.inc({ outcome: 'busy' }),
      'signin.abandoned': () => this.signIns.inc({ outcome: 'abandoned' }),
      'signin.directory_unavailable': () => this.signIns.inc({ outcome: 'directory_unavailable' }),
      // Counted elsewhere (codes issued: by the store decorator) or not a metric.
      'code.issued': none,
      'code.revoked': none,
      'code.verify_lockout': () => this.verifyLockouts.inc(),
      'code.verify_unlocked': none,
      'codes.purged': none,
      'codes.switched_off': () =>
        this.codesSwitchedOff.inc(
          { cause: typeof details.cause === 'string' ? details.cause : 'unknown' },
          Array.isArray(details.codeIds) ? details.codeIds.length : 1,
        ),
      // Counted batch by batch as the purge goes (rowsPurged), not once it has finished.
      'store.purged': none,
      'notice.sent': none,
      'notice.failed': none,
      signout: none,
      'user.created': none,
      'user.updated': none,
      'user.password_set': none,
      'user.password_link_issued': none,
      'user.password_link_refused': none,
      'user.signed_out': none,
      'user.disabled': none,
      'user.enabled': none,
      'user.removed': none,
      'channel.set': none,
      'channel.removed': none,
      'channel.proof_sent': () => this.channelProofs.inc({ outcome: 'sent', reason: '' }),
      'channel.proof_refused': () => this.channelProofs.inc({ outcome: 'refused', reason }),
      'channel.registered': () => this.channelProofs.inc({ outcome: 'proven', reason: '' }),
      'channel.registration_undone': () => this.channelUndoLinks.inc({ outcome: 'undone' }),
      'channel.undo_refused': () => this.channelUndoLinks.inc({ outcome: 'refused' }),
      'channel.addresses_allowed': none,
      'channel.test_sent': () => this.channelTests.inc({ outcome: 'sent', reason: '' }),
      'channel.test_refused': () => this.channelTests.inc({ outcome: 'refused', reason }),
      'registration.challenge_sent': () =>
        this.registrationSessions.inc({ outcome: 'challenge_sent', method: 'channel-code' }),
      'registration.opened': () =>
        this.registrationSessions.inc({ outcome: 'opened', method: methodOf(details) }),
      'registration.refused': () =>
        this.registrationSessions.inc({ outcome: 'refused', method: methodOf(details) }),
      'registration.link_issued': () =>
        this.registrationSessions.inc({ outcome: 'link_issued', method: 'link' }),
      'registration.provider_unlinked': none,
      'passkey.registered': () => this.userPasskeys.inc({ outcome: 'registered' }),
      'passkey.refused': () => this.userPasskeys.inc({ outcome: 'refused' }),
      'passkey.renamed': () => this.userPasskeys.inc({ outcome: 'renamed' }),
      'passkey.removed': () => this.userPasskeys.inc({ outcome: 'removed' }),
      'passkey.forgotten': () => this.userPasskeys.inc({ outcome: 'forgotten' }),
      'group.created': none,
      'group.member_added': none,
      'group.member_removed': none,
      'user.groups_left': none,
      'group.renamed': none,
      'group.removed': none,
      'group.owner_set': none,
      'group.external_id_set': none,
      'policy.set': none,
      'branding.set': none,
      'branding.reset': none,
      'language.added': none,
      'messages.imported': none,
      'service_key.created': none,
      'service_key.revoked': none,
      'demo.seeded': none,
      'system.start': none,
      'directory.synced': none,
      'users.imported': none,
      'console.codes_revoked': none,
      'console.signin': none,
      'console.signin_failed': none,
      'console.passkey_registered': none,
      'console.passkey_refused': none,
      'console.signout': none,
      'console.account_created': none,
      'console.account_changed': none,
      'console.account_removed': none,
      'console.enrolment_link_issued': () => this.consoleEnrolments.inc({ outcome: 'issued', reason: '' }),
      'console.enrolment_link_used': () => this.consoleEnrolments.inc({ outcome: 'used', reason: '' }),
      'console.enrolment_link_refused': () => this.consoleEnrolments.inc({ outcome: 'refused', reason }),
      'console.oidc_signin': () => this.consoleOidc.inc({ outcome: 'signed_in', reason: '' }),
      'console.oidc_refused': () => this.consoleOidc.inc({ outcome: 'refused', reason }),
      'console.oidc_role_changed': () => this.consoleOidc.inc({ outcome: 'role_changed', reason: '' }),
      'console.directory_role_changed': () =>
        this.consoleDirectoryRoles.inc({ outcome: details.to === null ? 'ended' : 'changed' }),
    };
    count[entry.event]();
  }
}

/** How a registration session was opened, as its audit entry says. */
function methodOf(details: Record<string, unknown>): string {
  return typeof details.method === 'string' ? details.method : 'unknown';
}
