import { ErrorEnvelope, SuccessEnvelope } from '@dea/contract';
import Type from 'typebox';

export type Security = 'session' | 'serviceKey' | 'console' | 'none';

export interface RouteDoc {
  summary: string;
  security: Security;
  /** The `result` of the envelope, or the whole answer when `bare` (userinfo, message). */
  result: Type.TSchema;
  bare?: boolean;
  /** Takes an Idempotency-Key header (http/idempotency-key.ts): its 409 and 422 are declared. */
  idempotent?: boolean;
}

const SECURITY: Record<Security, Record<string, string[]>[]> = {
  session: [{ sessionCookie: [], xsrfToken: [] }],
  serviceKey: [{ serviceKey: [] }],
  console: [{ consoleSession: [], consoleToken: [] }],
  none: [],
};

const failure = (description: string) => ({ ...ErrorEnvelope, description });

/**
 * What a route declares besides its request: a summary, who may call it, and every answer it can
 * give, business errors included (a business failure is HTTP 200 with the error envelope, DESIGN
 * section 2). The OpenAPI document is derived from these, and the same schemas serialize the
 * answers, so no field that is not declared can leave the server.
 */
export function documented(doc: RouteDoc) {
  return {
    summary: doc.summary,
    security: SECURITY[doc.security],
    response: {
      200: doc.bare
        ? { ...doc.result, description: 'The answer' }
        : Type.Union([SuccessEnvelope(doc.result), ErrorEnvelope], {
            description:
              'Success (error 0, with the result) or a business error (error > 0, result null, or the wait in seconds also sent as Retry-After, or with 148 how many unused codes the user holds and when one frees up)',
          }),
      400: failure('Malformed or invalid request, or a URL that does not decode (error 2); nothing changed'),
      ...(doc.security === 'session' && {
        401: failure('The session has expired (error 3)'),
        403: failure(
          'No session, or a missing or wrong X-XSRF-TOKEN (error 3); result.loginPath names the login application',
        ),
      }),
      ...(doc.security === 'console' && {
        401: failure('No console session, or it ended or sat idle too long (error 3)'),
        403: failure(
          'A missing or wrong X-Console-Token, or a role or step that does not allow this (error 3)',
        ),
      }),
      ...(doc.security === 'serviceKey' && {
        401: failure('Missing, wrong or revoked service key, or one without the verify scope (error 3)'),
      }),
      ...(doc.idempotent === true && {
        409: failure(
          'A request with the same Idempotency-Key is still being answered (error 2); send it again once that one is answered',
        ),
        422: failure(
          'The Idempotency-Key was sent with another request (error 2); a new request needs a new key',
        ),
      }),
      500: failure('Internal error (error 1); the details are in the server log only'),
      503: failure('The store is unavailable (error 1, Retry-After)'),
    },
  };
}
