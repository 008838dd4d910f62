import { humanDuration } from '@dea/contract';
import { ErrorNumber } from '@dea/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DomainError,
  invalidRequest,
  notFound,
  type RefusalKind,
  serviceUnavailable,
} from '../domain/errors.js';
import { codeOf, isStoreUnavailable, unavailableReason } from '../store/store-error.js';
import { requestLanguage } from './request-language.js';

export { okEnvelope as ok } from '@dea/contract';

/** Framework errors that mean the request itself is malformed: HTTP 400, error 2. */
const MALFORMED: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'the body is too large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'the body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the body is empty',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'the body must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the Content-Length does not match the body',
  FST_ERR_CTP_INVALID_TYPE: 'the Content-Type is not valid',
};

/**
 * The HTTP status of each kind of domain error: the one place the domain's refusals become HTTP.
 * A refusal of the product's rules is a business failure, answered 200 with its error number
 * (DESIGN section 2).
 */
export const HTTP_STATUS_OF: Readonly<Record<RefusalKind, number>> = {
  refused: 200,
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  missing: 404,
  conflict: 409,
  unavailable: 503,
  failed: 500,
};

/** A refusal of the HTTP door itself, with a status of its own (an Idempotency-Key reused: 422). */
export class HttpRefusal extends DomainError {
  constructor(
    detail: string,
    readonly httpStatus: number,
  ) {
    super(ErrorNumber.invalidRequest, 'error.invalidRequest', { detail }, 'invalid');
  }
}

const httpStatusOf = (error: DomainError): number =>
  error instanceof HttpRefusal ? error.httpStatus : HTTP_STATUS_OF[error.kind];

function toDomainError(error: FastifyError | DomainError): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (error.validation) {
    const first = error.validation[0];
    const where = `${error.validationContext ?? 'body'}${first?.instancePath ?? ''}`;
    // A field that must be one of some literals (a union of constants) names them all.
    const constants = error.validation
      .filter((issue) => issue.keyword === 'const' && issue.instancePath === first?.instancePath)
      .map((issue) => String((issue.params as { allowedValue?: unknown }).allowedValue));
    if (constants.length > 0) {
      return invalidRequest(
        `${where} must be ${constants.length > 1 ? 'one of: ' : ''}${constants.join(', ')}`,
      );
    }
    const params = (first?.params ?? {}) as { allowedValues?: unknown; additionalProperty?: unknown };
    const allowed = Array.isArray(params.allowedValues) ? ` (${params.allowedValues.join(', ')})` : '';
    const extra = typeof params.additionalProperty === 'string' ? ` '${params.additionalProperty}'` : '';
    return invalidRequest(`${where} ${first?.message ?? 'is not valid'}${extra}${allowed}`);
  }
  if (error.code && error.code in MALFORMED) return invalidRequest(MALFORMED[error.code] ?? '');
  // Any other error a library marks as the client's (a path that does not decode, a file path
  // that leaves its folder): the client's status, never a 500.
  const status = error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return status === 404 ? notFound() : new HttpRefusal('the request is not valid', status);
  }
  return undefined;
}

/** A client that went away mid-request (an aborted upload) is no failure of the server. */
const isAbortedByClient = (request: FastifyRequest, error: FastifyError | DomainError): boolean =>
  error.message === 'aborted' || (request.raw.destroyed && !request.raw.complete);

export { isStoreUnavailable } from '../store/store-error.js';

/** Seconds a client is asked to wait while the store is unavailable. */
const UNAVAILABLE_RETRY_SECONDS = 5;

async function sendEnvelope(request: FastifyRequest, reply: FastifyReply, error: DomainError): Promise<void> {
  const language = await requestLanguage(request).catch(() => 'en');
  const values: Record<string, string | number> = { ...error.params };
  for (const [name, seconds] of Object.entries(error.durations))
    values[name] = humanDuration(language, seconds);
  const message = await request.server.services.catalogs
    .text(language, error.textKey, values)
    .catch(() => error.textKey);
  const retryAfter = error.result?.retryAfterSeconds;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  const status = httpStatusOf(error);
  await reply
    .code(status)
    .header('cache-control', 'no-store')
    // A failure of the server (500, 503) names the request, so that a user's report finds its log
    // line; every answer also carries it in X-Request-Id.
    .send({
      error: error.errorNumber,
      message,
      result: error.result,
      ...(status >= 500 && { requestId: request.id }),
    });
}

/** A URL Fastify cannot even route (bad percent-encoding): 400 in the envelope, logged as the client's. */
export async function badUrl(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  request.log.info({ url: request.url }, 'request refused: the URL does not decode');
  await sendEnvelope(request, reply, invalidRequest('the URL is not valid'));
}

/**
 * One place turns every failure into the envelope: typed domain errors keep their number and
 * text; malformed requests get 400; anything else is 500 with a generic text, logged, never leaked.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError | DomainError, request, reply) => {
    const known = toDomainError(error);
    if (known) {
      request.log.info({ errorNumber: known.errorNumber, textKey: known.textKey }, 'request refused');
      return sendEnvelope(request, reply, known);
    }
    if (isAbortedByClient(request, error)) {
      request.log.info({ errorCode: codeOf(error) }, 'client aborted the request');
      return sendEnvelope(request, reply, invalidRequest('the request was aborted'));
    }
    if (isStoreUnavailable(error)) {
      request.log.warn(
        { errorCode: codeOf(error), cause: error.message },
        unavailableReason(error, request.server.services.config.dataDir),
      );
      return sendEnvelope(request, reply, serviceUnavailable(UNAVAILABLE_RETRY_SECONDS));
    }
    request.log.error({ err: error }, 'request failed');
    return sendEnvelope(
      request,
      reply,
      new DomainError(ErrorNumber.internal, 'error.internal', {}, 'failed'),
    );
  });
  app.setNotFoundHandler(async (request, reply) => sendEnvelope(request, reply, notFound()));
}

/** `{}` or no body at all, for calls whose request is empty (userinfo, getCurrentConfig). */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
