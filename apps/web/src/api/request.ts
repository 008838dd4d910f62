import {
  API_BASE_PATH,
  XSRF_COOKIE_NAME,
  XSRF_COOKIE_NAME_TLS,
  XSRF_HEADER_NAME,
  type EnvelopeOf,
  type PageCall,
} from '@dea/contract';
import { EnvelopeError, HttpError, NetworkError } from './api-error';
import { loginPathOf } from '../shared/page-urls';
import { redirectForSessionStatus } from './session-redirect';
import { readCookie } from '../shared/cookie';
import { hasStartupAnswer, takeStartupAnswer } from './startup-answers';

export interface RequestOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  query?: Readonly<Record<string, string | undefined>>;
  /** Public calls whose failure must not send the user to sign in (branding, spec section 8). */
  redirectOnSessionEnd?: boolean;
  /** Cancels the call (the component that asked has gone). */
  signal?: AbortSignal;
}

let acceptLanguage: string | undefined;

/** Server messages come back in the page's language: every call names it in Accept-Language. */
export function setRequestLanguage(languageCode: string): void {
  acceptLanguage = languageCode.replace('_', '-');
}

/** A path under /dea/api/ ('userinfo'), or an absolute server path ('/login/api/session'). */
function urlOf(path: string, query: RequestOptions['query']): string {
  const url = new URL(path.startsWith('/') ? path : `${API_BASE_PATH}${path}`, window.location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
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
  const headers = new Headers({ Accept: 'application/json' });
  if (acceptLanguage) headers.set('Accept-Language', acceptLanguage);
  if (method !== 'GET') {
    headers.set('Content-Type', 'application/json');
    // Behind TLS the server names the cookie with the __Host- prefix.
    const token = readCookie(XSRF_COOKIE_NAME_TLS) ?? readCookie(XSRF_COOKIE_NAME);
    if (token) headers.set(XSRF_HEADER_NAME, token);
  }
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(method === 'GET' ? {} : { body: JSON.stringify(options.body ?? {}) }),
    });
  } catch (cause) {
    throw new NetworkError(cause);
  }
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null);
    const loginPath = response.status === 403 ? loginPathOf(body) : undefined;
    const leaving =
      options.redirectOnSessionEnd !== false && redirectForSessionStatus(response.status, loginPath);
    const message = (body as { message?: unknown } | null)?.message;
    throw new HttpError(
      response.status,
      leaving,
      typeof message === 'string' && message !== '' ? message : undefined,
    );
  }
  try {
    return (await response.json()) as T;
  } catch (cause) {
    throw new NetworkError(cause);
  }
}

/** A call answering the envelope: its result, or an EnvelopeError when `error` is set. */
export async function requestResult<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const envelope = await request<EnvelopeOf<T>>(path, options);
  if (envelope.error) throw new EnvelopeError(envelope.error, envelope.message);
  return envelope.result;
}
