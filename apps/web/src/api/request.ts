import { type PageCall } from '@dea/contract';
import { EnvelopeError, HttpError, NetworkError } from './api-error';
import { callServer } from './call-server';
import { loginPathOf } from '../shared/page-urls';
import { redirectForSessionStatus } from './session-redirect';
import { envelopeOf, isFailedEnvelope, setCallLanguage, type JsonAnswer } from '../shared/fetch/fetch-core';
import { hasStartupAnswer, takeStartupAnswer } from './startup-answers';

export interface RequestOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  query?: Readonly<Record<string, string | undefined>>;
  /** Public calls whose failure must not send the user to sign in (branding, spec section 8). */
  redirectOnSessionEnd?: boolean;
  /** Cancels the call (the component that asked has gone). */
  signal?: AbortSignal;
  /**
   * This call, already sent: its answer is judged as if this request had sent it (the code asked
   * for beside the page's scripts, code-on-load.ts).
   */
  started?: Promise<JsonAnswer>;
}

/** Server messages come back in the page's language: every call names it in Accept-Language. */
export function setRequestLanguage(languageCode: string): void {
  setCallLanguage(languageCode);
}

/**
 * The answer delivered with the page for this call, if any (startup-answers.ts). It is taken a
 * turn later, so that a caller that left at once (its signal aborted) leaves it to the next.
 */
async function answeredWithPage(
  call: PageCall,
  signal: AbortSignal | undefined,
): Promise<{ body: unknown } | undefined> {
  if (!hasStartupAnswer(call)) return undefined;
  await Promise.resolve();
  if (signal?.aborted) throw new NetworkError(signal.reason);
  return takeStartupAnswer(call);
}

/** One call to the server: JSON in, JSON out, typed errors for everything else. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  if (!path.startsWith('/')) {
    const call: PageCall = {
      method,
      path,
      ...(options.query !== undefined && { query: options.query }),
      ...(method !== 'GET' && { body: options.body ?? {} }),
    };
    const answered = await answeredWithPage(call, options.signal);
    if (answered !== undefined) return answered.body as T;
  }
  let answer: JsonAnswer;
  try {
    answer = await (options.started ??
      callServer(path, {
        method,
        body: options.body,
        ...(options.query !== undefined && { query: options.query }),
        ...(options.signal !== undefined && { signal: options.signal }),
      }));
  } catch (cause) {
    throw new NetworkError(cause);
  }
  if (!answer.ok) {
    const body = answer.body ?? null;
    const loginPath = answer.status === 403 ? loginPathOf(body) : undefined;
    const leaving =
      options.redirectOnSessionEnd !== false && redirectForSessionStatus(answer.status, loginPath);
    const message = envelopeOf(body)?.message;
    throw new HttpError(
      answer.status,
      leaving,
      message !== undefined && message !== '' ? message : undefined,
    );
  }
  if (answer.body === undefined) throw new NetworkError('the answer is not JSON');
  return answer.body as T;
}

/** A call answering the envelope: its result, or an EnvelopeError when `error` is set. */
export async function requestResult<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const envelope = envelopeOf(await request<unknown>(path, options));
  if (envelope === undefined) throw new NetworkError('the answer is not an envelope');
  if (isFailedEnvelope(envelope)) throw new EnvelopeError(envelope.error, envelope.message, envelope.result);
  return envelope.result as T;
}
