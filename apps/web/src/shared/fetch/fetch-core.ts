import { ErrorNumber, type EnvelopeOf } from '@dea/contract';

/**
 * The one way the browser calls its server, for the page (`api/request.ts`) and the console
 * (`console/api/console-call.ts`): the address, JSON in and out, the language, a timeout, the
 * caller's abort, and the envelope decoded. Each caller keeps only its own headers (the page's
 * XSRF token, the console's token) and turns a failure into its own error.
 */

/** A call that got no answer to read: `kind` says why. */
export class FetchFailure extends Error {
  constructor(
    readonly kind: 'network' | 'timeout' | 'aborted',
    cause: unknown,
  ) {
    super(
      kind === 'timeout'
        ? 'The server did not answer in time'
        : kind === 'aborted'
          ? 'The call was cancelled'
          : 'The server could not be reached',
      { cause },
    );
    this.name = 'FetchFailure';
  }
}

/** What came back: the status, and the body when it was JSON (`undefined` when it was not). */
export interface JsonAnswer {
  status: number;
  ok: boolean;
  body: unknown;
}

export interface JsonCall {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Sent as JSON on every method but GET (`{}` when absent). */
  body?: unknown;
  /** Headers of this caller (tokens); Accept, Content-Type and Accept-Language are set here. */
  headers?: Readonly<Record<string, string | undefined>>;
  /** Cancels the call (the component that asked has gone). */
  signal?: AbortSignal;
  /** How long to wait for the answer and its body; DEFAULT_TIMEOUT_MS when absent. */
  timeoutMs?: number;
}

/**
 * Long enough for a code sent through a slow channel (the server retries its provider within
 * this), short enough that a stalled connection ends in an error the user can act on.
 */
export const DEFAULT_TIMEOUT_MS = 60_000;

let acceptLanguage: string | undefined;

/** Server messages come back in the page's (or console's) language: every call names it. */
export function setCallLanguage(languageCode: string): void {
  acceptLanguage = languageCode.replace('_', '-');
}

/** `path` with the query's defined values (a value `undefined` is left out). */
export function addressOf(path: string, query?: Readonly<Record<string, string | undefined>>): string {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.pathname + url.search;
}

/** One signal that aborts when the caller's does or when the time is up, and says which. */
function deadlineOf(timeoutMs: number, callerSignal: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The server did not answer in time', 'TimeoutError'));
  }, timeoutMs);
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    failureOf: (cause: unknown) =>
      new FetchFailure(timedOut ? 'timeout' : callerSignal?.aborted ? 'aborted' : 'network', cause),
    end: () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/**
 * Calls `address` and reads its JSON. Throws a FetchFailure when no answer could be read (no
 * network, timeout, abort); any status is an answer, for the caller to judge.
 */
export async function fetchJson(address: string, call: JsonCall = {}): Promise<JsonAnswer> {
  const method = call.method ?? 'GET';
  const headers = new Headers({ Accept: 'application/json' });
  if (acceptLanguage) headers.set('Accept-Language', acceptLanguage);
  if (method !== 'GET') headers.set('Content-Type', 'application/json');
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  const deadline = deadlineOf(call.timeoutMs ?? DEFAULT_TIMEOUT_MS, call.signal);
  try {
    if (deadline.signal.aborted) throw deadline.failureOf(deadline.signal.reason);
    let response: Response;
    try {
      response = await fetch(address, {
        method,
        headers,
        credentials: 'same-origin',
        signal: deadline.signal,
        ...(method === 'GET' ? {} : { body: JSON.stringify(call.body ?? {}) }),
      });
    } catch (cause) {
      throw deadline.failureOf(cause);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (cause) {
      throw deadline.failureOf(cause);
    }
    return { status: response.status, ok: response.ok, body: parsedJson(text) };
  } finally {
    deadline.end();
  }
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * An envelope's `error` as a number: 0 or any falsy value (absent, `false`, `null`, `""`, `NaN`)
 * is success (spec section 3); a number, or a string of digits, is that error; `undefined` for
 * anything else that is set (`true`, other text: not the contract's envelope).
 */
function errorNumberOf(error: unknown): number | undefined {
  if (!error) return ErrorNumber.ok;
  if (typeof error === 'number') return error;
  if (typeof error === 'string' && /^\s*\d+\s*$/.test(error)) return Number(error);
  return undefined;
}

/**
 * The envelope of the contract (`error`, `message`, `result`) in a body, or `undefined` when the
 * body is not one (a failure for every caller). A missing or empty message is `''`.
 */
export function envelopeOf(body: unknown): EnvelopeOf<unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { error, message, result } = body as Record<string, unknown>;
  const errorNumber = errorNumberOf(error);
  if (errorNumber === undefined) return undefined;
  return {
    error: errorNumber,
    message: typeof message === 'string' ? message : '',
    result,
  };
}

/** Whether an envelope reports a failure (an error number other than ok). */
export const isFailedEnvelope = (envelope: EnvelopeOf<unknown>): boolean => envelope.error !== ErrorNumber.ok;
