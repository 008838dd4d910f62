import { request as httpsRequest } from 'node:https';
import { signedHeaders } from './standard-webhooks.js';

export interface SignedPost {
  url: string;
  /** The signing secret's bytes (Standard Webhooks). */
  secret: Buffer;
  /** The webhook-id: the same on every retry of one message, so a receiver drops repeats. */
  id: string;
  /** JSON. */
  body: string;
  /** PEM of the certificate authorities besides the system's. */
  ca: string | undefined;
  timeoutMs: number;
  userAgent: string;
  /** What a timeout says, naming its setting. */
  timeoutMessage: string;
}

export type PostAnswer =
  | { ok: true }
  | { ok: false; why: string; status?: number; retryAfterMs?: number | undefined };

/**
 * The one signed HTTPS POST of the server (webhooks, the audit export): JSON, signed as Standard
 * Webhooks describes with a fresh timestamp per attempt; answers whether a 2xx came back, and if
 * not why (the HTTP status, with its Retry-After; or the connection's error). Never throws.
 */
export function postSigned(post: SignedPost): Promise<PostAnswer> {
  const timestamp = Math.floor(Date.now() / 1000);
  return new Promise((resolve) => {
    const request = httpsRequest(
      post.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(post.body),
          'user-agent': post.userAgent,
          ...signedHeaders(post.secret, post.id, timestamp, post.body),
        },
        ...(post.ca !== undefined && { ca: post.ca }),
        timeout: post.timeoutMs,
      },
      (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          resolve({ ok: true });
          return;
        }
        const retryAfter = Number(response.headers['retry-after']);
        resolve({
          ok: false,
          why: `HTTP ${status}`,
          status,
          retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined,
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(post.timeoutMessage)));
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ ok: false, why: error.code ?? error.message }),
    );
    request.end(post.body);
  });
}
