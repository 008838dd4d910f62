import { ERROR_TEXT_KEYS, ErrorNumber, type TextKey } from '@dea/contract';

/**
 * What kind of refusal a domain error is, in the domain's words. Each door answers each kind in
 * one place: the HTTP envelope (http/envelope.ts `HTTP_STATUS_OF`: a refusal of the product's
 * rules is a business failure, HTTP 200, DESIGN section 2), SCIM, the CLI, RADIUS and
 * /validate/check.
 *
 * - `refused`: the rules say no (too many codes, no channel, a bad code): the error number says why.
 * - `invalid`: the request itself is not valid.
 * - `unauthenticated`: nobody is signed in, or the session ended.
 * - `forbidden`: the caller may not do this (their role, their scope, a stale second factor).
 * - `missing`: what the request names does not exist.
 * - `conflict`: the state forbids it now (another source owns it, a name is taken).
 * - `unavailable`: something the answer depends on (the store, the directory, the provider) is down.
 * - `failed`: the product failed; the answer says nothing more.
 */
export type RefusalKind =
  | 'refused'
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'missing'
  | 'conflict'
  | 'unavailable'
  | 'failed';

/**
 * A failure the page or the console may show: an envelope error number, the catalog text that
 * explains it in the request's language, and what kind of refusal it is. No transport in it.
 */
export class DomainError extends Error {
  constructor(
    readonly errorNumber: Exclude<ErrorNumber, 0>,
    readonly textKey: TextKey = ERROR_TEXT_KEYS[errorNumber],
    readonly params: Readonly<Record<string, string | number>> = {},
    readonly kind: RefusalKind = 'refused',
    readonly result: Record<string, unknown> | null = null,
    /** Placeholders holding a span of time, in seconds: written "about 10 minutes" in the language. */
    readonly durations: Readonly<Record<string, number>> = {},
  ) {
    super(`${errorNumber} ${textKey}`);
    this.name = 'DomainError';
  }
}

export const invalidRequest = (detail: string): DomainError =>
  new DomainError(ErrorNumber.invalidRequest, 'error.invalidRequest', { detail }, 'invalid');

export const notPermitted = (textKey: TextKey = 'error.notPermitted'): DomainError =>
  new DomainError(ErrorNumber.notPermitted, textKey);

/** The caller may not do this: their role or their scope does not reach it. */
export const forbidden = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.notPermitted', {}, 'forbidden');

/** What the request names does not exist (or is not the caller's to see). */
export const notFound = (): DomainError =>
  new DomainError(ErrorNumber.invalidRequest, 'error.notFound', {}, 'missing');

/** The state forbids the change now; the detail says why (another source's part names its owner). */
export const conflict = (detail: string): DomainError =>
  new DomainError(ErrorNumber.invalidRequest, 'error.invalidRequest', { detail }, 'conflict');

/** The page is sent to the login application (spec section 8): the answer says where it is. */
export const notSignedIn = (loginPath: string): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.notSignedIn', {}, 'forbidden', { loginPath });

export const sessionExpired = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.sessionExpired', {}, 'unauthenticated');

export const badXsrfToken = (loginPath: string): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.xsrf', {}, 'forbidden', { loginPath });

export const unknownChannel = (): DomainError => new DomainError(ErrorNumber.unknownChannel);

/**
 * Error 148. With the codes the user holds, the message says how many and in how long the next
 * frees up (the oldest unused one expires), and the result carries both (ADR 0041).
 */
export const codeStoreFull = (held?: {
  unusedCodes: number;
  nextFreeAt: number;
  now: number;
}): DomainError =>
  held === undefined
    ? new DomainError(ErrorNumber.codeStoreFull)
    : new DomainError(
        ErrorNumber.codeStoreFull,
        'error.codeStoreFullUntil',
        { count: held.unusedCodes },
        'refused',
        { unusedCodes: held.unusedCodes, nextFreeAt: new Date(held.nextFreeAt).toISOString() },
        { duration: Math.max(1, Math.ceil((held.nextFreeAt - held.now) / 1000)) },
      );

export const deliveryFailed = (): DomainError => new DomainError(ErrorNumber.deliveryFailed);

/** Something the answer depends on (the store, the directory) is down: asked again after the wait. */
export const serviceUnavailable = (retryAfterSeconds: number): DomainError =>
  new DomainError(ErrorNumber.internal, 'error.unavailable', {}, 'unavailable', { retryAfterSeconds });

/**
 * Error 140 with the wait as a person says it ("about 10 minutes", in their language); `seconds`
 * stays for catalogs an operator wrote against the earlier text.
 */
export const tooManyRequests = (
  retryAfterSeconds: number,
  textKey: 'error.tooManyRequests' | 'login.locked' = 'error.tooManyRequests',
): DomainError =>
  new DomainError(
    ErrorNumber.tooManyRequests,
    textKey,
    { seconds: retryAfterSeconds, minutes: Math.ceil(retryAfterSeconds / 60) },
    'refused',
    { retryAfterSeconds },
    { duration: retryAfterSeconds },
  );
