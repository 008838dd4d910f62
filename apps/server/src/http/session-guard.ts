import { XSRF_HEADER_NAME } from '@dea/contract';
import type { FastifyRequest } from 'fastify';
import { badXsrfToken, notPermitted, notSignedIn, sessionExpired } from '../domain/api-error.js';
import { sessionIdOf } from './cookies.js';

/**
 * For calls that need a signed-in user: no session 403, an expired one 401, and a non-GET
 * call without the session's cross-site request token 403.
 */
export async function requireSession(request: FastifyRequest): Promise<void> {
  const { sessions, now, config } = request.server.services;
  const sessionId = sessionIdOf(request);
  const resolved = await sessions.resolve(sessionId, now());
  if (resolved.state === 'none' || sessionId === undefined) throw notSignedIn(config.loginPath);
  if (resolved.state === 'expired') throw sessionExpired();
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const header = request.headers[XSRF_HEADER_NAME.toLowerCase()];
    if (!sessions.xsrfTokenMatches(sessionId, typeof header === 'string' ? header : undefined)) {
      throw badXsrfToken(config.loginPath);
    }
  }
  request.signedIn = { user: resolved.user, sessionId };
}

/** A user id in a body must be the signed-in user's own. */
export function assertOwnUserId(request: FastifyRequest, userId: string): void {
  if (request.signedIn?.user.id !== userId) throw notPermitted();
}
