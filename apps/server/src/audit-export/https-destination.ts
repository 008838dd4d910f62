import { request as httpsRequest } from 'node:https';
import { signedHeaders } from '../webhooks/standard-webhooks.js';
import type { AuditExportConfig } from './audit-export-settings.js';
import type { AuditRecord } from './audit-record.js';
import { AuditDestination } from './audit-destination.js';

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

  send(records: readonly AuditRecord[]): Promise<void> {
    const body = JSON.stringify({ entries: records });
    const id = `audit_${records[0]?.id ?? ''}_${records.at(-1)?.id ?? ''}`;
    const timestamp = Math.floor(Date.now() / 1000);
    return new Promise((resolve, reject) => {
      const request = httpsRequest(
        this.config.url,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'Emergency Access audit export',
            ...signedHeaders(this.config.secret, id, timestamp, body),
          },
          ...(this.config.ca !== undefined && { ca: this.config.ca }),
          timeout: this.timeoutMs,
        },
        (response) => {
          response.resume();
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`${this.config.url} answered HTTP ${status} (check DEA_AUDIT_HTTPS_URL)`));
        },
      );
      request.on('timeout', () =>
        request.destroy(new Error('no answer in time (DEA_AUDIT_EXPORT_TIMEOUT_SECONDS)')),
      );
      request.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          new Error(
            `${this.config.url}: ${error.code ?? error.message} (check DEA_AUDIT_HTTPS_URL and DEA_AUDIT_HTTPS_CA_FILE)`,
          ),
        ),
      );
      request.end(body);
    });
  }

  async release(): Promise<void> {}
}
