import {
  CONSOLE_API_BASE_PATH,
  CONSOLE_TOKEN_COOKIE_NAME,
  CONSOLE_TOKEN_HEADER_NAME,
  type EnvelopeOf,
} from '@dea/contract';
import { readCookie } from '../../shared/cookie';

/**
 * Why a console call failed, as the screens need it: `status` 0 when the server was not reached,
 * the envelope's error number and (translated) message when it answered one, and `passkeyAgain`
 * when the server wants the passkey confirmed before this action.
 */
export class ConsoleCallError extends Error {
  constructor(
    readonly status: number,
    readonly errorNumber: number | undefined,
    readonly serverMessage: string | undefined,
    readonly passkeyAgain = false,
  ) {
    super(serverMessage ?? (status === 0 ? 'The server could not be reached' : `HTTP ${status}`));
    this.name = 'ConsoleCallError';
  }

  /** The console session is gone (signed out, idle too long, account disabled): sign in again. */
  get signedOut(): boolean {
    return this.status === 401;
  }
}

export interface ConsoleCallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

let acceptLanguage: string | undefined;

/** Server messages come back in the console's language. */
export function setConsoleCallLanguage(languageCode: string): void {
  acceptLanguage = languageCode.replace('_', '-');
}

/** The session's token, echoed on every call that changes something (CSRF, like the page's). */
function consoleToken(): string | undefined {
  return readCookie(`__Host-${CONSOLE_TOKEN_COOKIE_NAME}`) ?? readCookie(CONSOLE_TOKEN_COOKIE_NAME);
}

/** The address of a call under /dea/admin-api/, with its query. */
export function consoleUrl(path: string, query?: ConsoleCallOptions['query']): string {
  const url = new URL(`${CONSOLE_API_BASE_PATH}${path}`, window.location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') url.searchParams.set(name, value);
  }
  return url.pathname + url.search;
}

interface Envelope {
  error?: unknown;
  message?: unknown;
  result?: unknown;
}

function failureOf(status: number, body: Envelope | null): ConsoleCallError {
  const errorNumber = typeof body?.error === 'number' ? body.error : undefined;
  const message = typeof body?.message === 'string' && body.message !== '' ? body.message : undefined;
  const result = body?.result as { passkey?: unknown } | null | undefined;
  return new ConsoleCallError(status, errorNumber, message, result?.passkey === 'again');
}

/** One call to the console's API: the envelope's result, or a ConsoleCallError. */
export async function consoleCall<T>(path: string, options: ConsoleCallOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const headers = new Headers({ Accept: 'application/json' });
  if (acceptLanguage) headers.set('Accept-Language', acceptLanguage);
  const token = consoleToken();
  if (token) headers.set(CONSOLE_TOKEN_HEADER_NAME, token);
  if (method !== 'GET') headers.set('Content-Type', 'application/json');
  let response: Response;
  try {
    response = await fetch(consoleUrl(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(method === 'GET' ? {} : { body: JSON.stringify(options.body ?? {}) }),
    });
  } catch (cause) {
    if (options.signal?.aborted) throw cause;
    throw new ConsoleCallError(0, undefined, undefined);
  }
  const body = (await response.json().catch(() => null)) as Envelope | null;
  if (!response.ok || body === null || (typeof body.error === 'number' && body.error !== 0)) {
    throw failureOf(response.ok && body === null ? 0 : response.status, body);
  }
  return (body as EnvelopeOf<T>).result;
}
