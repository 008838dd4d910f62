import { postSigned } from '../net/signed-post.js';
import type { AuditExportConfig } from './audit-export-settings.js';
import type { AuditRecord } from '../domain/ports/audit-destination.js';
import { AuditDestination } from '../domain/ports/audit-destination.js';

type HttpsConfig = NonNullable<AuditExportConfig['https']>;

/**
 * Audit entries to an HTTPS endpoint in batches, POST {"entries": [...]}, signed as Standard
 * Webhooks describes: the webhook-id is the batch's first and last entry ids, the same on every
 * retry, so a receiver can drop a batch it already took; each entry carries its own id too.
 */
export class HttpsDestination extends AuditDestination {
  constructor(
    private readonly config: HttpsConfig,
    private readonly timeoutMs: number,
  ) {
    super('https', config.batchSize, config.intervalMs);
  }

  async send(records: readonly AuditRecord[]): Promise<void> {
    const answer = await postSigned({
      url: this.config.url,
      secret: this.config.secret,
      id: `audit_${records[0]?.id ?? ''}_${records.at(-1)?.id ?? ''}`,
      body: JSON.stringify({ entries: records }),
      ca: this.config.ca,
      timeoutMs: this.timeoutMs,
      userAgent: 'Emergency Access audit export',
      timeoutMessage: 'no answer in time (DEA_AUDIT_EXPORT_TIMEOUT_SECONDS)',
    });
    if (answer.ok) return;
    throw new Error(
      answer.status === undefined
        ? `${this.config.url}: ${answer.why} (check DEA_AUDIT_HTTPS_URL and DEA_AUDIT_HTTPS_CA_FILE)`
        : `${this.config.url} answered ${answer.why} (check DEA_AUDIT_HTTPS_URL)`,
    );
  }

  async release(): Promise<void> {}
}
