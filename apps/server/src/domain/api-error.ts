import { ERROR_TEXT_KEYS, ErrorNumber, type TextKey } from '@dea/contract';

/**
 * A failure the page may show: an envelope error number, the catalog text that explains it in
 * the request's language, and the HTTP status (200 for business failures, DESIGN section 2).
 */
export class ApiError extends Error {
  constructor(
    readonly errorNumber: Exclude<ErrorNumber, 0>,
    readonly textKey: TextKey = ERROR_TEXT_KEYS[errorNumber],
    readonly params: Readonly<Record<string, string | number>> = {},
    readonly httpStatus = 200,
    readonly result: Record<string, unknown> | null = null,
    /** Placeholders holding a span of time, in seconds: written "about 10 minutes" in the language. */
    readonly durations: Readonly<Record<string, number>> = {},
  ) {
    super(`${errorNumber} ${textKey}`);
    this.name = 'ApiError';
  }
}

export const invalidRequest = (detail: string): ApiError =>
  new ApiError(ErrorNumber.invalidRequest, 'error.invalidRequest', { detail }, 400);

export const notPermitted = (textKey: TextKey = 'error.notPermitted'): ApiError =>
  new ApiError(ErrorNumber.notPermitted, textKey);

/** 403 sends the page to the login application (spec section 8): the answer says where it is. */
export const notSignedIn = (loginPath: string): ApiError =>
  new ApiError(ErrorNumber.notPermitted, 'error.notSignedIn', {}, 403, { loginPath });

export const sessionExpired = (): ApiError =>
  new ApiError(ErrorNumber.notPermitted, 'error.sessionExpired', {}, 401);

export const badXsrfToken = (loginPath: string): ApiError =>
  new ApiError(ErrorNumber.notPermitted, 'error.xsrf', {}, 403, { loginPath });

export const unknownChannel = (): ApiError => new ApiError(ErrorNumber.unknownChannel);

/** Error 148; with the seconds until the oldest unused code expires, the message says when. */
export const codeStoreFull = (secondsUntilFree?: number): ApiError =>
  secondsUntilFree === undefined
    ? new ApiError(ErrorNumber.codeStoreFull)
    : new ApiError(ErrorNumber.codeStoreFull, 'error.codeStoreFullUntil', {}, 200, null, {
        duration: secondsUntilFree,
      });

export const deliveryFailed = (): ApiError => new ApiError(ErrorNumber.deliveryFailed);

/** HTTP 503 with Retry-After: something the answer depends on (the store, the directory) is down. */
export const serviceUnavailable = (retryAfterSeconds: number): ApiError =>
  new ApiError(ErrorNumber.internal, 'error.unavailable', {}, 503, { retryAfterSeconds });

/**
 * Error 140 with the wait as a person says it ("about 10 minutes", in their language); `seconds`
 * stays for catalogs an operator wrote against the earlier text.
 */
export const tooManyRequests = (
  retryAfterSeconds: number,
  textKey: 'error.tooManyRequests' | 'login.locked' = 'error.tooManyRequests',
): ApiError =>
  new ApiError(
    ErrorNumber.tooManyRequests,
    textKey,
    { seconds: retryAfterSeconds, minutes: Math.ceil(retryAfterSeconds / 60) },
    200,
    { retryAfterSeconds },
    { duration: retryAfterSeconds },
  );
