import { CONSOLE_API_BASE_PATH, CONSOLE_TOKEN_COOKIE_NAME, CONSOLE_TOKEN_HEADER_NAME } from '@dea/contract';
import { readCookie } from '../../shared/cookie';
import {
  addressOf,
  envelopeOf,
  fetchJson,
  FetchFailure,
  isFailedEnvelope,
  setCallLanguage,
  type JsonAnswer,
} from '../../shared/fetch/fetch-core';

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
    /** A session of the identity provider: sign in there again (oidc/start?again=1), then repeat. */
    readonly providerAgain = false,
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

/** Server messages come back in the console's language. */
export function setConsoleCallLanguage(languageCode: string): void {
  setCallLanguage(languageCode);
}

/** The session's token, echoed on every call that changes something (CSRF, like the page's). */
function consoleToken(): string | undefined {
  return readCookie(`__Host-${CONSOLE_TOKEN_COOKIE_NAME}`) ?? readCookie(CONSOLE_TOKEN_COOKIE_NAME);
}

/** The address of a call under /dea/admin-api/, with its query (empty values left out). */
export function consoleUrl(path: string, query?: ConsoleCallOptions['query']): string {
  const given = Object.entries(query ?? {}).filter(([, value]) => value !== '');
  return addressOf(`${CONSOLE_API_BASE_PATH}${path}`, Object.fromEntries(given));
}

/** The console's reading of a failed answer: status, error number, message, passkey again. */
function failureOf(status: number, body: unknown): ConsoleCallError {
  const envelope = envelopeOf(body);
  const message = envelope?.message === '' ? undefined : envelope?.message;
  const errorNumber = envelope !== undefined && isFailedEnvelope(envelope) ? envelope.error : undefined;
  const result = envelope?.result as { passkey?: unknown } | null | undefined;
  return new ConsoleCallError(
    status,
    errorNumber,
    message,
    result?.passkey === 'again',
    result?.passkey === 'provider',
  );
}

/** One call to the console's API: the envelope's result, or a ConsoleCallError. */
export async function consoleCall<T>(path: string, options: ConsoleCallOptions = {}): Promise<T> {
  let answer: JsonAnswer;
  try {
    answer = await fetchJson(consoleUrl(path, options.query), {
      method: options.method ?? 'GET',
      body: options.body,
      headers: { [CONSOLE_TOKEN_HEADER_NAME]: consoleToken() },
      ...(options.signal !== undefined && { signal: options.signal }),
    });
  } catch (failure) {
    // A call its screen gave up is no failure to show; the screen has gone.
    if (failure instanceof FetchFailure && failure.kind === 'aborted') throw failure;
    throw new ConsoleCallError(0, undefined, undefined);
  }
  const envelope = envelopeOf(answer.body);
  if (!answer.ok || envelope === undefined || isFailedEnvelope(envelope)) {
    throw failureOf(answer.ok && envelope === undefined ? 0 : answer.status, answer.body);
  }
  return envelope.result as T;
}
