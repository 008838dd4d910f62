import { API_BASE_PATH, XSRF_COOKIE_NAME, XSRF_COOKIE_NAME_TLS, XSRF_HEADER_NAME } from '@dea/contract';
import { readCookie } from '../shared/cookie';
import { addressOf, fetchJson, type JsonAnswer } from '../shared/fetch/fetch-core';

export interface ServerCall {
  method?: 'GET' | 'POST';
  body?: unknown;
  query?: Readonly<Record<string, string | undefined>>;
  /** Cancels the call (the component that asked has gone). */
  signal?: AbortSignal;
}

/** A path under /dea/api/ ('userinfo'), or an absolute server path ('/login/api/session'). */
function urlOf(path: string, query: ServerCall['query']): string {
  return addressOf(path.startsWith('/') ? path : `${API_BASE_PATH}${path}`, query);
}

/**
 * The page's call as it goes over the network: its address, JSON body and the cross-site token of
 * every call but a GET. Shared by `request.ts` and the code asked for beside the page's scripts
 * (code-on-load.ts), so both send the same request; the answer is judged by `request.ts`.
 */
export function callServer(path: string, call: ServerCall = {}): Promise<JsonAnswer> {
  const method = call.method ?? 'GET';
  // Behind TLS the server names the cookie with the __Host- prefix.
  const token =
    method === 'GET' ? undefined : (readCookie(XSRF_COOKIE_NAME_TLS) ?? readCookie(XSRF_COOKIE_NAME));
  return fetchJson(urlOf(path, call.query), {
    method,
    body: call.body,
    headers: { [XSRF_HEADER_NAME]: token },
    ...(call.signal !== undefined && { signal: call.signal }),
  });
}
