import { XSRF_HEADER_NAME } from '@dea/contract';
import type { FastifyRequest } from 'fastify';
import { badXsrfToken, notPermitted, notSignedIn, sessionExpired } from '../domain/errors.js';
import { sessionIdOf } from './cookies.js';
import { PAGE_POLICY_CATEGORIES } from '../domain/policies/emergency-policy.js';

/**
 * For calls that need a signed-in user: no session 403, an expired one 401, and a non-GET
 * call without the session's cross-site request token 403.
 */
export async function requireSession(request: FastifyRequest): Promise<void> {
  await signedInWith(request, undefined);
}

/**
 * requireSession for the calls that issue codes: the user's page policies (Self Service and
 * Channel Registration, emergency-policy.ts) are read with the session, in the same statement, into
 * `request.signedIn.policies`.
 */
export async function requirePageSession(request: FastifyRequest): Promise<void> {
  await signedInWith(request, PAGE_POLICY_CATEGORIES);
}

async function signedInWith(
  request: FastifyRequest,
  policies: readonly [string, string] | undefined,
): Promise<void> {
  const { sessions, now, config } = request.server.services;
  const sessionId = sessionIdOf(request);
  const header = request.headers[XSRF_HEADER_NAME.toLowerCase()];
  const changes = request.method !== 'GET' && request.method !== 'HEAD';
  const resolved = await sessions.resolve(sessionId, now(), {
    ...(policies !== undefined && { policies }),
    ...(changes && { token: { presented: typeof header === 'string' ? header : undefined } }),
  });
  if (resolved.state === 'none' || sessionId === undefined) throw notSignedIn(config.loginPath);
  if (resolved.state === 'expired') throw sessionExpired();
  if (resolved.state === 'bad-token') throw badXsrfToken(config.loginPath);
  request.signedIn =
    resolved.policies === undefined
      ? { user: resolved.user, sessionId }
      : { user: resolved.user, sessionId, policies: resolved.policies };
}

/** A user id in a body must be the signed-in user's own. */
export function assertOwnUserId(request: FastifyRequest, userId: string): void {
  if (request.signedIn?.user.id !== userId) throw notPermitted();
}
