import { isNativeError } from 'node:util/types';
import type { DeliveryResult } from './delivery.js';

export interface HttpCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal | undefined;
}

export type HttpAnswer = { status: number; body: string } | { failed: DeliveryResult & { ok: false } };

/** Enough of an answer to check it; a peer cannot make the server buffer more. */
const MAX_ANSWER_BYTES = 64 * 1024;

async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return '';
  // Typed by hand: the stream types of fetch are not in this project's lib (no DOM).
  const reader = response.body.getReader() as {
    read(): Promise<{ done: boolean; value?: Uint8Array }>;
    cancel(): Promise<void>;
  };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done || value === undefined) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_ANSWER_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

/** The network error code under fetch's generic 'fetch failed' (ECONNREFUSED, ECONNRESET, ...). */
function networkCode(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && isNativeError(current); depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return isNativeError(error) ? error.name : 'unknown';
}

/**
 * One HTTP request of a provider. Redirects are not followed (a gateway's credentials must not
 * travel to another host); network failures and timeouts come back as transient failures whose
 * reason holds only an error code.
 */
export async function httpCall(call: HttpCall): Promise<HttpAnswer> {
  try {
    const response = await fetch(call.url, {
      method: call.method,
      headers: call.headers,
      ...(call.body !== undefined && { body: call.body }),
      redirect: 'manual',
      signal: call.signal ?? null,
    });
    return { status: response.status, body: await readCapped(response) };
  } catch (error) {
    if (call.signal?.aborted) return { failed: { ok: false, transient: true, reason: 'timeout' } };
    return { failed: { ok: false, transient: true, reason: `network error ${networkCode(error)}` } };
  }
}

/** 5xx, 429 (too many requests) and 408 (request timeout) may pass on a later attempt; other statuses will not. */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}
