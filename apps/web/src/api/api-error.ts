/** Every failure of a call to /dea/api/ is one of these. */
export abstract class ApiError extends Error {
  abstract readonly kind: 'http' | 'network' | 'envelope';
}

/** The server answered with an HTTP status outside 2xx (spec section 8). */
export class HttpError extends ApiError {
  readonly kind = 'http';
  constructor(
    readonly status: number,
    /** True when the page is already on its way to login or logout because of this answer. */
    readonly leavingPage = false,
    /** The envelope's message when the answer carried one (503: "temporarily unavailable"). */
    readonly serverMessage?: string,
  ) {
    super(`HTTP ${status}`);
    this.name = 'HttpError';
  }
}

/** No answer at all (offline, connection refused) or an answer that is not JSON. */
export class NetworkError extends ApiError {
  readonly kind = 'network';
  constructor(cause: unknown) {
    super('The server could not be reached', { cause });
    this.name = 'NetworkError';
  }
}

/** HTTP 200 whose envelope reports a business failure; its message is meant for the user. */
export class EnvelopeError extends ApiError {
  readonly kind = 'envelope';
  constructor(
    readonly errorNumber: number,
    readonly serverMessage: string,
    /** The envelope's result, which some failures fill (error 148: how many codes, until when). */
    readonly result: unknown = null,
  ) {
    super(`Error ${errorNumber}: ${serverMessage}`);
    this.name = 'EnvelopeError';
  }
}

export function isLeavingPage(error: unknown): boolean {
  return error instanceof HttpError && error.leavingPage;
}
